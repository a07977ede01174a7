// Shared pieces of the end-to-end tests: paths, skip rule, helpers.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "process.h"
#include "report_parser.h"

namespace kdtest {

inline const std::string kKdelay = KDELAY_BIN;

// How long kdelay may take to compile and attach before it samples: 0.4 s
// here; in an emulated guest of tests/vm 10-25 s for a sample, and over
// 90 s for --stall's program on 7.2 (CI, twice). Only a hang guard.
inline constexpr std::chrono::seconds kStartTimeout{180};
inline const std::string kWorkload = KD_WORKLOAD_BIN;

// Why this machine cannot run real eBPF, or "" if it can.
inline std::string why_no_bpf()
{
    if (std::getenv("KDELAY_TEST_NO_BPF"))
        return "KDELAY_TEST_NO_BPF is set (scripts/sanitize.sh: the tests that load no eBPF)";
    if (geteuid() != 0)
        return "e2e tests load eBPF and need root";
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        return "no kernel BTF at /sys/kernel/btf/vmlinux";
    return "";
}

#define KD_REQUIRE_BPF()                                   \
    do {                                                   \
        const std::string why = ::kdtest::why_no_bpf();    \
        if (!why.empty())                                  \
            GTEST_SKIP() << why;                           \
    } while (0)

// The tid a kd_workload printed as "tid NAME TID".
inline uint32_t workload_tid(const std::string& out, const std::string& name)
{
    const std::string key = "tid " + name + " ";
    const auto at = out.find(key);
    return at == std::string::npos ? 0 : static_cast<uint32_t>(std::stoul(out.substr(at + key.size())));
}

// A count kdelay reported against the one the workload made: exact, unless
// the kernel skipped probe runs in the sample (a sample's
// "probe_runs_skipped"), when it may be short by as many and never over.
#define KD_EXPECT_COUNT(reported, made, skipped)                                        \
    do {                                                                               \
        const uint64_t kd_reported = (reported), kd_made = (made), kd_skipped = (skipped); \
        if (kd_skipped == 0) {                                                         \
            EXPECT_EQ(kd_reported, kd_made);                                           \
        } else {                                                                       \
            EXPECT_LE(kd_reported, kd_made);                                           \
            EXPECT_GE(kd_reported + kd_skipped, kd_made) << kd_skipped << " runs skipped"; \
        }                                                                              \
    } while (0)

// Turns the kernel's scheduler statistics on while it lives: without them
// (the default on Debian's kernels) schedstat reads "0 0 0".
class SchedStatsOn {
public:
    SchedStatsOn()
    {
        std::ifstream("/proc/sys/kernel/sched_schedstats") >> old_;
        std::ofstream("/proc/sys/kernel/sched_schedstats") << 1;
    }
    ~SchedStatsOn() { std::ofstream("/proc/sys/kernel/sched_schedstats") << old_; }

private:
    int old_ = 0;
};

// One run of the common case: a kd_workload prints "ready" and waits for
// SIGUSR1; kdelay -p starts sampling it; SIGUSR1 then releases the workload,
// which does its part and prints "done"; kdelay ends on its own. prepare,
// if any, is handed the workload's pid before kdelay starts.
struct ReleasedRun {
    int status = -1;      // kdelay's exit status
    std::string out, err;  // kdelay's
    std::string workload_out;
};

// A thread's time on a CPU and waiting on a runqueue, in ns, from schedstat.
inline std::pair<uint64_t, uint64_t> schedstat(pid_t pid, uint32_t tid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/schedstat");
    uint64_t run = 0, wait = 0;
    in >> run >> wait;
    return {run, wait};
}

// Fills run; a failed step is a fatal failure (call it inside
// ASSERT_NO_FATAL_FAILURE). start_marker: how kdelay's output says sampling
// started (the JSON marker with --format json).
inline void run_released(ReleasedRun& run, const std::vector<std::string>& workload,
                         const std::vector<std::string>& kdelay_args, std::chrono::seconds done_within,
                         std::chrono::seconds kdelay_within = std::chrono::seconds(20),
                         const std::string& start_marker = "# Start sampling",
                         const std::function<bool(pid_t)>& prepare = {})
{
    Process w(workload);
    ASSERT_TRUE(w.wait_for_output("ready", std::chrono::seconds(5))) << w.err();
    if (prepare) {
        ASSERT_TRUE(prepare(w.pid())) << "the workload could not be prepared";
    }
    std::vector<std::string> argv = {kKdelay, "-p", std::to_string(w.pid())};
    argv.insert(argv.end(), kdelay_args.begin(), kdelay_args.end());
    Process kdelay(argv);
    ASSERT_TRUE(kdelay.wait_for_output(start_marker, kStartTimeout)) << kdelay.err();
    w.signal(SIGUSR1);
    ASSERT_TRUE(w.wait_for_output("done", done_within)) << w.out();
    run.workload_out = w.out();
    run.status = kdelay.wait(kdelay_within);
    run.out = kdelay.out();
    run.err = kdelay.err();
}

// In the emulated guests of tests/vm (their kernel command line has
// kdelay.init=), where time is far coarser than on hardware.
inline bool in_emulated_guest()
{
    std::ifstream in("/proc/cmdline");
    const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return cmdline.find("kdelay.init=") != std::string::npos;
}

// Waits until `kdelay record` says it is recording (its probes are attached).
inline bool wait_until_recording(Process& rec)
{
    using namespace std::chrono_literals;
    for (int i = 0; i < 200 && rec.err().find("kdelay: recording") == std::string::npos; ++i)
        rec.wait_for_output("never", 100ms);
    return rec.err().find("kdelay: recording") != std::string::npos;
}

}  // namespace kdtest
