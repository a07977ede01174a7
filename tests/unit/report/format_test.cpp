#include "report/format.h"

#include <gtest/gtest.h>
#include <regex>

using namespace kdelay;

TEST(Format, ThousandsSeparators)
{
    EXPECT_EQ(with_commas(0), "0");
    EXPECT_EQ(with_commas(999), "999");
    EXPECT_EQ(with_commas(1000), "1,000");
    EXPECT_EQ(with_commas(184191520), "184,191,520");
    EXPECT_EQ(with_commas(18446744073709551615ull), "18,446,744,073,709,551,615");
}

TEST(Format, TimestampIsLocalIsoThenUtc)
{
    setenv("TZ", "Europe/Amsterdam", 1);
    tzset();
    // 2023-06-08 10:17:22.725127 UTC
    const auto t = std::chrono::system_clock::time_point(std::chrono::microseconds(1686219442725127));
    EXPECT_EQ(timestamp_suffix(t), "@2023-06-08T12:17:22.725127 (10:17:22 UTC)");
    const auto whole = std::chrono::system_clock::time_point(std::chrono::seconds(1686219442));
    EXPECT_EQ(timestamp_suffix(whole), "@2023-06-08T12:17:22 (10:17:22 UTC)");
    unsetenv("TZ");
    tzset();
}
