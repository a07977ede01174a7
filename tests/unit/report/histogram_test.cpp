#include "report/histogram.h"

#include <gtest/gtest.h>

using namespace kdelay;

TEST(Log2Hist, SlotsFollowBccsLog2)
{
    EXPECT_EQ(Log2Hist::low(0), 0u);
    EXPECT_EQ(Log2Hist::high(0), 0u);
    EXPECT_EQ(Log2Hist::low(1), 1u);
    EXPECT_EQ(Log2Hist::high(1), 1u);
    EXPECT_EQ(Log2Hist::low(10), 512u);
    EXPECT_EQ(Log2Hist::high(10), 1023u);
    EXPECT_EQ(Log2Hist::high(64), UINT64_MAX);
}

TEST(Log2Hist, PercentilesInterpolateWithinTheSlot)
{
    Log2Hist h;
    h.slots[10] = 50;  // 512..1023
    h.slots[11] = 50;  // 1024..2047
    EXPECT_EQ(h.total(), 100u);
    EXPECT_EQ(h.percentile(0.5), 1023u);   // the end of the first half
    EXPECT_EQ(h.percentile(0.25), 767u);   // halfway through 512..1023
    EXPECT_EQ(h.percentile(0.99), 2026u);
    EXPECT_EQ(Log2Hist{}.percentile(0.5), 0u);
}

TEST(Log2Hist, RendersLikeBccTools)
{
    Log2Hist h;
    h.slots[9] = 10;
    h.slots[11] = 40;
    const auto lines = render_log2_hist(h, "ns");
    ASSERT_EQ(lines.size(), 4u);  // header, 256-511, 512-1023 (empty), 1024-2047
    EXPECT_EQ(lines[0], "      ns          : count     distribution");
    EXPECT_EQ(lines[1], "     256 -> 511   : 10       |**********                              |");
    EXPECT_EQ(lines[2], "     512 -> 1023  : 0        |                                        |");
    EXPECT_EQ(lines[3], "    1024 -> 2047  : 40       |****************************************|");
    EXPECT_TRUE(render_log2_hist(Log2Hist{}, "ns").empty());
}
