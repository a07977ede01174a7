// "%.3f" by hand must print what fmt (and so printf and Python) prints.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <random>

#include "annotate/fixed_format.h"

using namespace kdelay;

namespace {

std::string fixed3(double v, size_t width = 0, Align align = Align::right)
{
    std::string out(std::max(width, kFixed3Max), '\0');
    out.resize(static_cast<size_t>(write_fixed3(out.data(), v, width, align) - out.data()));
    return out;
}

}  // namespace

TEST(FixedFormat, AgreesWithFmtOnRandomAndTieValues)
{
    std::mt19937_64 rng(7);
    std::vector<double> values = {0.0, 0.0005, 0.0015, 0.0625, 0.1875, 1.0005, 2.5, -0.0001, -0.0625,
                                  1e-300, 123456789.1234565, std::ldexp(1.0, 80), 0.00049999999999999999,
                                  -0.0, std::numeric_limits<double>::denorm_min(), std::ldexp(1.0, -1022) * 0.75,
                                  std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::infinity(), std::ldexp(1.0, 64) * 1.5, 1.8446744073709552e16};
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
