// The µs columns must round exactly as trace.py's Python does: one rounding of
// the exact ratio to a double, then "%.3f" of that double's exact value.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <random>

#include "annotate/tsc_time.h"

using namespace kdelay;

TEST(TscTime, RoundsTheExactRatioOnceToNearestEven)
{
    const uint64_t two53 = uint64_t{1} << 53;
    EXPECT_EQ(exact_ratio(1, 3), 1.0 / 3);
    EXPECT_EQ(exact_ratio(two53 + 1, 1), static_cast<double>(two53)) << "a tie goes to even";
    EXPECT_EQ(exact_ratio(two53 + 3, 1), static_cast<double>(two53 + 4)) << "a tie goes to even";
    EXPECT_EQ(exact_ratio((unsigned __int128)(two53 + 1) * 3 + 1, 3), static_cast<double>(two53 + 2))
        << "just above a tie rounds up: the remainder counts";
    EXPECT_EQ(exact_ratio((unsigned __int128)(two53 + 1) * 3 - 1, 3), static_cast<double>(two53))
        << "just below a tie rounds down";
    const unsigned __int128 big = (unsigned __int128)UINT64_MAX * 1000000;
    EXPECT_EQ(exact_ratio(big, 1), std::ldexp(1.0, 64) * 1e6);
    EXPECT_EQ(exact_ratio(7, UINT64_MAX), 7.0 / std::ldexp(1.0, 64));
}

TEST(TscTime, MatchesLongDoubleWhereThatIsUnambiguous)
{
    std::mt19937_64 rng(42);
    int checked = 0;
    for (int i = 0; i < 200000; ++i) {
        const uint64_t n = rng() >> (rng() % 64), d = (rng() >> (rng() % 64)) | 1;
        const long double q = static_cast<long double>(n) / static_cast<long double>(d);
        const double lo = std::nextafter(static_cast<double>(q), 0.0), hi = std::nextafter(static_cast<double>(q), INFINITY);
        // Skip quotients near a midpoint, where long double's own rounding could decide.
        const long double mid_lo = (static_cast<long double>(lo) + static_cast<double>(q)) / 2;
        const long double mid_hi = (static_cast<long double>(hi) + static_cast<double>(q)) / 2;
        if (std::fabs(q - mid_lo) < q * 1e-17L || std::fabs(q - mid_hi) < q * 1e-17L)
            continue;
        EXPECT_EQ(exact_ratio(n, d), static_cast<double>(q)) << n << " / " << d;
        ++checked;
    }
    EXPECT_GT(checked, 150000);
}

TEST(TscTime, TicksToMicroseconds)
{
    EXPECT_EQ(ticks_to_us(2300, 0, 2300000000), 1.0);
    EXPECT_EQ(ticks_to_us(0, 2300, 2300000000), -1.0) << "before the first entry";
    EXPECT_EQ(ticks_to_ns(2300, 0, 2300000000), 1000);
    EXPECT_EQ(ticks_to_ns(0, 2300, 2300000000), -1000);
}
