#include "delay/upcalls.h"

#include <gtest/gtest.h>

using namespace kdelay;

TEST(Upcalls, ReturnCodesSplitIntoSuccessAndErrnoPerCpu)
{
    const auto u = upcall_stats({{{0, 0}, 5}, {{0, -11}, 2}, {{1, -11}, 3}, {{1, -105}, 1}, {{1, 0}, 4}},
                                true);
    EXPECT_TRUE(u.results_known);
    EXPECT_EQ(u.total, (UpcallStats::PerCpu{{0, 7}, {1, 8}}));
    EXPECT_EQ(u.succeeded, (UpcallStats::PerCpu{{0, 5}, {1, 4}}));
    ASSERT_EQ(u.failed.size(), 2u);
    EXPECT_EQ(u.failed.at(11), (UpcallStats::PerCpu{{0, 2}, {1, 3}}));
    EXPECT_EQ(u.failed.at(105), (UpcallStats::PerCpu{{1, 1}}));
    EXPECT_EQ(UpcallStats::sum(u.total), 15u);
    // As the reference: a non-negative result is a success.
    EXPECT_EQ(upcall_stats({{{2, 1}, 3}}, true).succeeded, (UpcallStats::PerCpu{{2, 3}}));
}

TEST(Upcalls, TheTracepointCountsCallsOnly)
{
    const auto u = upcall_stats({{{0, 1}, 5}, {{3, 1}, 2}}, false);
    EXPECT_FALSE(u.results_known);
    EXPECT_EQ(u.total, (UpcallStats::PerCpu{{0, 5}, {3, 2}}));
    EXPECT_TRUE(u.succeeded.empty());
    EXPECT_TRUE(u.failed.empty());
}

TEST(Upcalls, SkippedMeansNoHookAndNoNote)
{
    const auto plan = plan_upcalls(false);
    EXPECT_EQ(plan.probe, UpcallPlan::Probe::none);
    EXPECT_TRUE(plan.note.empty());
    EXPECT_EQ(plan.feature(), "");
}
