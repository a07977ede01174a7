#include "delay/config.h"

#include <gtest/gtest.h>

#include "target_abi.h"
#include <string>
#include <unistd.h>

#include "core/error.h"

using namespace kdelay;

namespace {

CommonOptions ebpf_only()
{
    CommonOptions o;
    o.print_ebpf = true;  // no root needed
    o.pids = {getpid()};
    return o;
}

// The line and exit code complete_delay_config refuses with, or "accepted".
std::string refusal(const CommonOptions& o, DelayConfig d)
{
    try {
        complete_delay_config(o, d);
        return "accepted";
    } catch (const Error& e) {
        return std::to_string(static_cast<int>(e.code())) + " " + e.what();
    }
}

DelayConfig completed(const CommonOptions& o, DelayConfig d)
{
    complete_delay_config(o, d);
    return d;
}

}  // namespace

TEST(DelayConfig, SeveralProcessesAreCheckedEachAndBoundedByTheContract)
{
    CommonOptions o = ebpf_only();
    o.pids = {getpid(), getppid()};
    EXPECT_EQ(completed(o, DelayConfig{}).bpf.pids, o.pids);
    o.pids = {getpid(), 999999999};
    EXPECT_EQ(refusal(o, DelayConfig{}), "69 no such process: 999999999");
    o.pids.clear();
    for (pid_t p = 1; p <= KD_MAX_TARGETS + 1; ++p)
        o.pids.push_back(p);
    EXPECT_EQ(refusal(o, DelayConfig{}), "64 -p takes at most 8 processes");
    o.pids = {getpid(), getppid()};
    // A tracepoint fires for any task; an uprobe or USDT probe is attached
    // in each process.
    for (const char* trigger : {"t:sched:sched_switch", "up:c:malloc", "u:kdtest:work_start"}) {
        DelayConfig triggered;
        triggered.start_trigger = parse_trigger(trigger);
        EXPECT_EQ(refusal(o, triggered), "accepted") << trigger;
    }
}

// The outputs' directories are checked before anything is compiled.
TEST(DelayConfig, OutputsThatCannotBeWrittenAreRefusedFirst)
{
    DelayConfig stall;
    stall.stall = 1'000'000;
    stall.timeline = "/tmp";
    EXPECT_EQ(refusal(ebpf_only(), stall), "accepted");
    stall.timeline = "/nonexistent-kdelay-dir";
    EXPECT_EQ(refusal(ebpf_only(), stall).substr(0, 3), "73 ");
    DelayConfig sample;
    sample.timeline = "/tmp";
    EXPECT_EQ(refusal(ebpf_only(), sample).substr(0, 3), "64 ") << "a sample's trace is a file";
    sample.timeline = "/tmp/kdelay-samples.pftrace";
    EXPECT_EQ(refusal(ebpf_only(), sample), "accepted");
    DelayConfig metrics;
    metrics.metrics = "/nonexistent-kdelay-dir/kdelay.prom";
    EXPECT_EQ(refusal(ebpf_only(), metrics).substr(0, 3), "73 ");
}
