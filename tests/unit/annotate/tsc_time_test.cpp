// The µs columns must round exactly as trace.py's Python does: one rounding of
// the exact ratio to a double, then "%.3f" of that double's exact value.
#include <gtest/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <random>

#include "annotate/fixed_format.h"
#include "annotate/tsc_time.h"

using namespace kdelay;

namespace {

std::string fixed3(double v, size_t width = 0, Align align = Align::right)
{
    fmt::memory_buffer b;
    append_fixed3(b, v, width, align);
    return fmt::to_string(b);
}

}  // namespace

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

TEST(FixedFormat, AgreesWithFmtOnRandomAndTieValues)
{
    std::mt19937_64 rng(7);
    std::vector<double> values = {0.0, 0.0005, 0.0015, 0.0625, 0.1875, 1.0005, 2.5, -0.0001, -0.0625,
                                  1e-300, 123456789.1234565, std::ldexp(1.0, 80), 0.00049999999999999999};
    for (int i = 0; i < 300000; ++i) {
        const double scale = std::ldexp(1.0, static_cast<int>(rng() % 120) - 40);
        values.push_back(static_cast<double>(rng() >> 11) / std::ldexp(1.0, 53) * scale *
                         (rng() & 1 ? 1 : -1));
        values.push_back(static_cast<double>(rng() % 100000000) / 8192);  // exact binary fractions: ties
    }
    for (double v : values)
        ASSERT_EQ(fixed3(v), fmt::format("{:.3f}", v)) << fmt::format("{:a}", v);
}

TEST(FixedFormat, Padding)
{
    EXPECT_EQ(fixed3(1.5, 16, Align::right), "           1.500");
    EXPECT_EQ(fixed3(1.5, 8, Align::left), "1.500   ");
    EXPECT_EQ(fixed3(123456789.0, 8, Align::left), "123456789.000");
}
