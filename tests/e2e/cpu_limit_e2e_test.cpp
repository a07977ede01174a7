// READY told apart, end to end: a spinner throttled by its cgroup's CPU
// bandwidth limit, queued behind another spinner, or both, each alone on
// CPU 1 with what the case puts beside it. kdelay's parts are checked
// against the kernel's own counts over the same run: the spinner's
// schedstat wait (run_delay) and the cgroup's throttled time.
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "../programs/clocks.h"
#include "e2e.h"
#include "test_cgroup.h"

using namespace kdtest;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string kSpin = KD_SPIN_BIN;
const std::string kGroup = "kdtest-cpu-limit";

// What kdelay saw of the spinner in one 2 s sample, and what the kernel
// counted over the whole run around it, as shares of the time.
struct Observed {
    json budget;
    double ready = 0, throttled = 0, queued = 0;  // kdelay: of its window
    double kernel_wait = 0, kernel_throttled = 0;   // the kernel: of the run around the sample
};

Observed observe(pid_t spinner, const TestCgroup* group)
{
    Observed o;
    const uint64_t wait0 = schedstat(spinner, static_cast<uint32_t>(spinner)).second;
    const uint64_t t0 = group ? throttled_ns(group->path()) : 0;
    const uint64_t w0 = now_ns();
    const Result r = run({kKdelay, "-p", std::to_string(spinner), "--budget", "--format", "json", "--sample-time", "2",
                          "--sample-count", "1", "--skip-upcall-stats"},
                         kStartTimeout + 30s);
    const uint64_t w1 = now_ns();
    const uint64_t wait1 = schedstat(spinner, static_cast<uint32_t>(spinner)).second;
    const uint64_t t1 = group ? throttled_ns(group->path()) : 0;
    EXPECT_EQ(r.status, 0) << r.err;
    json sample;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line[0] == '{')
            sample = json::parse(line, nullptr, false);
    for (const auto& t : sample.value("threads", json::array()))
        if (t.value("tid", 0) == spinner)
            o.budget = t.value("budget", json());
    if (!o.budget.is_object())
        return o;
    const double window = o.budget["window_ns"].get<double>();
    o.ready = o.budget["ready_ns"].get<double>() / window;
    if (o.budget["throttled_ns"].is_number())
        o.throttled = o.budget["throttled_ns"].get<double>() / window;
    if (o.budget["queued_ns"].is_number())
        o.queued = o.budget["queued_ns"].get<double>() / window;
    const double elapsed = static_cast<double>(w1 - w0);
    o.kernel_wait = static_cast<double>(wait1 - wait0) / elapsed;
    o.kernel_throttled = static_cast<double>(t1 - t0) / elapsed;
    return o;
}

// The group limited to 20% of a CPU (20000 of every 100000 us), and the
// spinner in it once it runs, throttled for a few periods already.
testing::AssertionResult limit_spinner(const TestCgroup& group, Process& spinner)
{
    if (group.path().empty())
        return testing::AssertionFailure() << "no cgroup with the cpu controller to make";
    if (!limit_cpu(group.path(), 20000, 100000))
        return testing::AssertionFailure() << "cannot limit " << group.path();
    if (!spinner.wait_for_output("spinning", 5s))
        return testing::AssertionFailure() << "kd_spin did not start";
    if (!group.add(spinner.pid()))
        return testing::AssertionFailure() << "cannot move kd_spin into " << group.path();
    std::this_thread::sleep_for(300ms);
    return testing::AssertionSuccess();
}

// Whether the kernel counts a group's throttled time where kdelay reads it
// (docs/report.md: 5.19 to 6.5 do not).
bool throttle_measured(const json& budget) { return budget.is_object() && budget["throttled_ns"].is_number(); }

}  // namespace

// Limited to 20% of a CPU and alone on CPU 1, the spinner runs a fifth of
// the time and waits the rest, nearly all of it throttled. The kernel's
// count for the group, over the run around kdelay's sample, is the same
// share: only the spinner's queue (CPU 1's) has a task to throttle, so the
// sum over the group's queues is that queue's. The share is compared, not
// the sum, as the kernel adds a throttle to it only when it ends. (Kernel:
// each kernel counts throttled time in fields and clocks of its own; the
// other cases add kdelay's splitting.)
// A gtest: it makes a cgroup with a CPU limit and reads the kernel's counts around kdelay's run.
// TAGS kernel
TEST(CpuLimitE2E, ASpinnerOverItsCgroupsLimitWaitsThrottledAsTheKernelCounts)
{
    KD_REQUIRE_BPF();
    const TestCgroup group(cpu_controller_root(), kGroup);
    Process spinner({kSpin, "1", "kd-limited"});
    ASSERT_TRUE(limit_spinner(group, spinner));
    const Observed o = observe(spinner.pid(), &group);
    ASSERT_TRUE(throttle_measured(o.budget)) << o.budget.dump();
    EXPECT_NEAR(o.ready, 0.8, 0.1) << o.budget.dump();
    EXPECT_NEAR(o.ready, o.kernel_wait, 0.05) << o.budget.dump();
    EXPECT_GE(o.throttled, 0.95 * o.ready) << o.budget.dump();
    EXPECT_NEAR(o.throttled, o.kernel_throttled, 0.05) << o.budget.dump();
    EXPECT_NEAR(o.queued + o.throttled, o.ready, 1e-9);
    ASSERT_TRUE(o.budget["throttled_by"].is_object()) << o.budget.dump();
    EXPECT_EQ(o.budget["throttled_by"]["cgroup"], "/" + kGroup);
    EXPECT_EQ(o.budget["throttled_by"]["cpu_max"], "20000 100000");
}

// Without a limit, beside another spinner on CPU 1: half the time READY,
// all of it queued, behind the other spinner, and none throttled.
// A gtest: it makes a cgroup with a CPU limit and reads the kernel's counts around kdelay's run.
// TAGS logic
TEST(CpuLimitE2E, ASpinnerSharingItsCpuWaitsQueuedBehindTheOther)
{
    KD_REQUIRE_BPF();
    Process spinner({kSpin, "1", "kd-queued"});
    Process rival({kSpin, "1", "kd-rival"});
    ASSERT_TRUE(spinner.wait_for_output("spinning", 5s));
    ASSERT_TRUE(rival.wait_for_output("spinning", 5s));
    const Observed o = observe(spinner.pid(), nullptr);
    ASSERT_TRUE(throttle_measured(o.budget)) << o.budget.dump();
    EXPECT_NEAR(o.ready, 0.5, 0.1) << o.budget.dump();
    EXPECT_NEAR(o.ready, o.kernel_wait, 0.05) << o.budget.dump();
    EXPECT_EQ(o.budget["throttled_ns"], 0) << o.budget.dump();
    EXPECT_EQ(o.budget["queued_ns"], o.budget["ready_ns"]);
    EXPECT_TRUE(o.budget["throttled_by"].is_null());
    ASSERT_FALSE(o.budget["ready_by"].empty()) << o.budget.dump();
    EXPECT_EQ(o.budget["ready_by"][0]["comm"], "kd-rival") << o.budget.dump();
    EXPECT_GE(o.budget["ready_by"][0]["ns"].get<double>(), 0.9 * o.budget["queued_ns"].get<double>() -
                                                               o.budget["ready_by"].back()["ns"].get<double>())
        << o.budget.dump();
}

// Both: limited to 20% and sharing CPU 1 with an unlimited spinner, it runs
// its 20 ms of a period in turns with the other (queued), then waits out
// the period throttled.
// A gtest: it makes a cgroup with a CPU limit and reads the kernel's counts around kdelay's run.
// TAGS logic
TEST(CpuLimitE2E, ASpinnerBothLimitedAndSharingItsCpuWaitsPartlyQueuedPartlyThrottled)
{
    KD_REQUIRE_BPF();
    const TestCgroup group(cpu_controller_root(), kGroup);
    Process spinner({kSpin, "1", "kd-limited"});
    Process rival({kSpin, "1", "kd-rival"});
    ASSERT_TRUE(rival.wait_for_output("spinning", 5s));
    ASSERT_TRUE(limit_spinner(group, spinner));
    const Observed o = observe(spinner.pid(), &group);
    ASSERT_TRUE(throttle_measured(o.budget)) << o.budget.dump();
    EXPECT_NEAR(o.ready, 0.8, 0.1) << o.budget.dump();
    EXPECT_NEAR(o.ready, o.kernel_wait, 0.05) << o.budget.dump();
    EXPECT_NEAR(o.throttled, o.kernel_throttled, 0.05) << o.budget.dump();
    EXPECT_GT(o.throttled, 0.3) << o.budget.dump();
    EXPECT_GT(o.queued, 0.1) << o.budget.dump();
    bool rival_named = false;
    for (const auto& h : o.budget["ready_by"])
        rival_named = rival_named || h["comm"] == "kd-rival";
    EXPECT_TRUE(rival_named) << o.budget.dump();
}
