// The CPU limits on a process's cgroups: cpu.max and cpu.stat as the kernel
// writes them, and which limit throttled it in a window.
#include <gtest/gtest.h>

#include "sys/cpu_limit.h"

using namespace kdelay;

TEST(CpuLimit, CpuMaxGivesAQuotaOrNone)
{
    uint64_t quota = 0, period = 0;
    ASSERT_TRUE(parse_cpu_max("20000 100000\n", quota, period));
    EXPECT_EQ(quota, 20000u);
    EXPECT_EQ(period, 100000u);
    EXPECT_FALSE(parse_cpu_max("max 100000\n", quota, period));
    EXPECT_FALSE(parse_cpu_max("", quota, period));
    EXPECT_FALSE(parse_cpu_max("-1 100000", quota, period));
}

TEST(CpuLimit, NrThrottledFromEitherVersionsCpuStat)
{
    EXPECT_EQ(parse_nr_throttled("nr_periods 28\nnr_throttled 27\nthrottled_time 1899326344\n"), 27u);
    EXPECT_EQ(parse_nr_throttled("usage_usec 9\nuser_usec 9\nsystem_usec 0\nnr_periods 3\nnr_throttled 2\n"
                                 "throttled_usec 150\n"),
              2u);
    EXPECT_EQ(parse_nr_throttled(""), 0u);
}

TEST(CpuLimit, TheLimitThatThrottledIsTheInnermostWhoseCountGrew)
{
    CpuLimit pod{"/pod", "/sys/fs/cgroup/pod", 50000, 100000, 4};
    CpuLimit app{"/pod/app", "/sys/fs/cgroup/pod/app", 20000, 100000, 9};
    const std::vector<CpuLimit> before = {app, pod};
    std::vector<CpuLimit> after = before;
    after[1].nr_throttled = 7;  // only the pod's limit throttled
    ASSERT_NE(limit_that_throttled(before, after), nullptr);
    EXPECT_EQ(limit_that_throttled(before, after)->cgroup, "/pod");
    EXPECT_EQ(limit_that_throttled(before, after)->cpu_max(), "50000 100000");
    after[0].nr_throttled = 10;
    EXPECT_EQ(limit_that_throttled(before, after)->cgroup, "/pod/app");
    // Neither count grew (or none was read as the window opened): the innermost.
    EXPECT_EQ(limit_that_throttled({}, before)->cgroup, "/pod/app");
    EXPECT_EQ(limit_that_throttled(before, {}), nullptr);
}
