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

// The line and exit code make_delay_config refuses with, or "accepted".
std::string refusal(const CommonOptions& o, const DelayOptions& d)
{
    try {
        make_delay_config(o, d);
        return "accepted";
    } catch (const Error& e) {
        return std::to_string(static_cast<int>(e.code())) + " " + e.what();
    }
}

}  // namespace

TEST(DelayConfig, RingBufferPagesRoundUpToAPowerOfTwo)
{
    for (auto [given, want] : std::vector<std::pair<uint32_t, uint32_t>>{{1, 1}, {3, 4}, {1024, 1024}, {1025, 2048}}) {
        DelayOptions d;
        d.buffer_page_count = given;
        EXPECT_EQ(make_delay_config(ebpf_only(), d).features.ringbuf_pages, want) << given;
    }
}

TEST(DelayConfig, TriggersAreParsedBeforeAnythingElse)
{
    CommonOptions o;  // not even a valid target: the trigger is refused first
    o.pids = {999999999};
    DelayOptions d;
    d.has_start_trigger = true;
    d.start_trigger = "t:a:b) { x(); } int y(void *c";
    EXPECT_EQ(refusal(o, d).substr(0, 3), "78 ") << refusal(o, d);
    DelayOptions ok;
    ok.has_stop_trigger = true;
    ok.stop_trigger = "ur:c:free";
    auto cfg = make_delay_config(ebpf_only(), ok);
    ASSERT_TRUE(cfg.stop_trigger);
    EXPECT_EQ(cfg.stop_trigger->kind, Trigger::Kind::uretprobe);
    EXPECT_FALSE(cfg.start_trigger);
}

TEST(DelayConfig, SeveralProcessesAreCheckedEachAndBoundedByTheContract)
{
    CommonOptions o = ebpf_only();
    o.pids = {getpid(), getppid()};
    EXPECT_EQ(make_delay_config(o, DelayOptions{}).bpf.pids, o.pids);
    o.pids = {getpid(), 999999999};
    EXPECT_EQ(refusal(o, DelayOptions{}), "69 no such process: 999999999");
    o.pids.clear();
    for (pid_t p = 1; p <= KD_MAX_TARGETS + 1; ++p)
        o.pids.push_back(p);
    EXPECT_EQ(refusal(o, DelayOptions{}), "64 -p takes at most 8 processes");
    o.pids = {getpid(), getppid()};
    // A tracepoint fires for any task; an uprobe or USDT probe is attached
    // in each process.
    DelayOptions triggered;
    triggered.has_start_trigger = true;
    triggered.start_trigger = "t:sched:sched_switch";
    EXPECT_EQ(refusal(o, triggered), "accepted");
    triggered.start_trigger = "up:c:malloc";
    EXPECT_EQ(refusal(o, triggered), "accepted");
    triggered.start_trigger = "u:kdtest:work_start";
    EXPECT_EQ(refusal(o, triggered), "accepted");
}

// --timeline: with --stall, a directory; without it, the samples' file,
// with the budget (its states). Five wait stacks by default in both: a
// sample keeps none, but its sched_switch verifies in far fewer
// instructions with the step (config.cpp).
TEST(DelayConfig, ATimelineIsAStallsDirectoryOrTheSamplesFile)
{
    DelayOptions stall;
    stall.stall = 1'000'000;
    stall.timeline_path = "/tmp";
    const DelayConfig s = make_delay_config(ebpf_only(), stall);
    EXPECT_EQ(s.timeline_dir, "/tmp");
    EXPECT_TRUE(s.timeline_file.empty());
    EXPECT_TRUE(s.features.timeline);
    EXPECT_EQ(s.features.wait_stacks, 5u);

    DelayOptions sample;
    sample.timeline_path = "/tmp/kdelay-samples.pftrace";
    const DelayConfig t = make_delay_config(ebpf_only(), sample);
    EXPECT_EQ(t.timeline_file, "/tmp/kdelay-samples.pftrace");
    EXPECT_TRUE(t.timeline_dir.empty());
    EXPECT_TRUE(t.features.timeline);
    EXPECT_TRUE(t.features.budget);
    EXPECT_EQ(t.features.wait_stacks, 5u);
}
