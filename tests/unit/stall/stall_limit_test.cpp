#include "stall/stall_limit.h"

#include <gtest/gtest.h>

namespace kdelay {
namespace {

constexpr uint64_t kSecond = 1'000'000'000;

TEST(StallLimiter, AtMostNAMinuteForEachNameTheRestToldOnceAMinute)
{
    StallLimiter limit(2);
    EXPECT_TRUE(limit.admit("handler", 300'000'000, 1 * kSecond));
    EXPECT_TRUE(limit.admit("handler", 300'000'000, 2 * kSecond));
    EXPECT_FALSE(limit.admit("handler", 900'000'000, 3 * kSecond));
    EXPECT_FALSE(limit.admit("handler", 400'000'000, 4 * kSecond));
    EXPECT_TRUE(limit.admit("revalidator", 300'000'000, 4 * kSecond)) << "each name has its own";
    EXPECT_EQ(limit.summary(30 * kSecond), std::nullopt) << "a minute after the first held back";
    const auto told = limit.summary(63 * kSecond);
    ASSERT_TRUE(told);
    EXPECT_EQ(*told, "2 more stalls not reported in full (at most 2 a minute for each thread name; the metrics "
                     "count every one): handler 2 (longest 900 ms)");
    EXPECT_EQ(limit.summary(200 * kSecond), std::nullopt) << "told once";
    EXPECT_TRUE(limit.admit("handler", 300'000'000, 62 * kSecond)) << "a new minute";
}

TEST(StallLimiter, ZeroAdmitsAllAndFlushTellsAtOnce)
{
    StallLimiter all(0);
    for (int i = 0; i < 100; ++i)
        EXPECT_TRUE(all.admit("x", 1, static_cast<uint64_t>(i)));
    StallLimiter one(1);
    EXPECT_TRUE(one.admit("x", 1, kSecond));
    EXPECT_FALSE(one.admit("x", 1, kSecond));
    EXPECT_TRUE(one.summary(kSecond, true));
}

TEST(StallLimiter, EndlessNamesShareOneBeyondTheBound)
{
    StallLimiter limit(1);
    for (int i = 0; i < 5000; ++i)
        limit.admit("name-" + std::to_string(i) + "x", 1, kSecond);
    EXPECT_FALSE(limit.admit("yet another", 1, kSecond)) << "past the bound, all names are one";
}

}  // namespace
}  // namespace kdelay
