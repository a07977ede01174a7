#include "delay/program.h"

#include <gtest/gtest.h>
#include <regex>
#include <set>

#include "bpf/probe_set.h"

#include "test_params.h"

using namespace kdelay;

namespace {

DelayProgramParams params() { return kdtest::program_params(); }

}  // namespace

TEST(DelayProgram, OffsetsAndTargetComeFromParameters)
{
    const std::string src = render_delay_program(params());
    EXPECT_NE(src.find("#define TARGET_TGID 4321\n"), std::string::npos);
    EXPECT_NE(src.find("#define POLL_NR 7\n"), std::string::npos);
    EXPECT_NE(src.find("#define TASK_PID_OFF 1264\n"), std::string::npos);
    EXPECT_NE(src.find("#define TASK_TGID_OFF 1268\n"), std::string::npos);
    EXPECT_NE(src.find("typedef __u32 kd_task_state_t;"), std::string::npos);
    EXPECT_NE(src.find("#define PT_REGS_NR_OFF 120\n"), std::string::npos);
    EXPECT_NE(src.find("typedef __u64 kd_regs_nr_t;"), std::string::npos);
    EXPECT_NE(src.find("struct kd_thread {"), std::string::npos) << "shared ABI header inlined";
}

TEST(DelayProgram, IncludesNoKernelHeadersAndLeavesNoPlaceholders)
{
    const std::string src = render_delay_program(params());
    EXPECT_EQ(src.find("#include"), std::string::npos);
    EXPECT_EQ(src.find("{{"), std::string::npos);
    EXPECT_EQ(src.find("}}"), std::string::npos);
}

TEST(DelayProgram, MapsGrowWithTheThreadCount)
{
    const auto small = size_delay_maps(1);
    const auto big = size_delay_maps(5000);
    EXPECT_GE(small.threads, 256u);
    EXPECT_GE(big.threads, 4 * 5000u);
    EXPECT_GE(big.syscalls, big.threads * 32u);
    EXPECT_EQ(big.threads & (big.threads - 1), 0u);
}

TEST(DelayProgram, TriggerFunctionsOnlyWhenAsked)
{
    auto p = params();
    std::string src = render_delay_program(p);
    EXPECT_EQ(src.find("kd_start_trigger"), std::string::npos);
    EXPECT_EQ(src.find("kd_stop_trigger"), std::string::npos);
    EXPECT_EQ(src.find("BPF_RINGBUF_OUTPUT"), std::string::npos);

    p.start_trigger = true;
    src = render_delay_program(p);
    EXPECT_NE(src.find(std::string("int ") + kStartTriggerFunction + "(void *ctx)"), std::string::npos);
    EXPECT_EQ(src.find(kStopTriggerFunction), std::string::npos);
    p.stop_trigger = true;
    src = render_delay_program(p);
    EXPECT_NE(src.find(std::string("int ") + kStopTriggerFunction + "(void *ctx)"), std::string::npos);
}

TEST(DelayProgram, SyscallEventsRenderTheRingBufferThresholdAndStacks)
{
    auto p = params();
    p.features.syscall_events = 5000;
    p.features.ringbuf_pages = 256;
    p.features.stack_trace_size = 1024;
    std::string src = render_delay_program(p);
    EXPECT_NE(src.find("BPF_RINGBUF_OUTPUT(events, 256);"), std::string::npos);
    EXPECT_NE(src.find("#define SYSCALL_EVENT_MIN_NS 5000"), std::string::npos);
    EXPECT_NE(src.find("BPF_STACK_TRACE(stack_traces, 1024);"), std::string::npos);
    EXPECT_EQ(src.find("key.nr != POLL_NR)"), std::string::npos);

    p.features.skip_syscall_poll_events = true;
    p.features.stack_trace_size = 0;
    src = render_delay_program(p);
    EXPECT_NE(src.find("&& key.nr != POLL_NR"), std::string::npos);
    EXPECT_EQ(src.find("BPF_STACK_TRACE"), std::string::npos);
    EXPECT_EQ(src.find("{{"), std::string::npos);
}

TEST(DelayProgram, BlockStartFromBiosOnlyOnKernelsWithoutBlockIoStart)
{
    DelayProgramParams p = params();
    p.block = BlockLayout{{104, 8}, {48, 8}, {24, 4}, {1064, 8}, {0, 4}, {4, 4}, std::nullopt};
    const std::string modern = render_delay_program(p);
    EXPECT_EQ(modern.find("kd_block_bio_start"), std::string::npos);
    EXPECT_NE(modern.find("return block_started(key, 0);"), std::string::npos) << "block_io_start overwrites";

    p.block->bio = BioLayout{{8, 8}, {40, 8}, {936, 8}};
    const std::string legacy = render_delay_program(p);
    EXPECT_NE(legacy.find("int kd_block_bio_start("), std::string::npos);
    EXPECT_NE(legacy.find("kd_read_u64((char *)bio + 8)"), std::string::npos);
    EXPECT_NE(legacy.find("kd_read_u64((char *)bdev + 936)"), std::string::npos);
    EXPECT_NE(legacy.find("kd_read_u64((char *)bio + 40)"), std::string::npos);
    // block_rq_insert keeps the earlier start taken at block_bio_queue.
    EXPECT_NE(legacy.find("return block_started(key, 1);"), std::string::npos);
    EXPECT_EQ(legacy.find("{{"), std::string::npos);
}

TEST(DelayProgram, UpcallCountersOnlyWhenAHookIsPlanned)
{
    DelayProgramParams p = params();
    const std::string none = render_delay_program(p);
    EXPECT_EQ(none.find("kd_upcall_return"), std::string::npos);
    EXPECT_EQ(none.find("BPF_HASH(upcalls"), std::string::npos);
    for (auto probe : {UpcallPlan::Probe::kretprobe, UpcallPlan::Probe::tracepoint}) {
        p.upcalls = probe;
        const std::string src = render_delay_program(p);
        EXPECT_NE(src.find("#define PT_REGS_RC_OFF 80\n"), std::string::npos);
        EXPECT_NE(src.find("int kd_upcall_return(void *ctx)"), std::string::npos);
        EXPECT_NE(src.find("int kd_upcall_seen(void *ctx)"), std::string::npos);
        EXPECT_EQ(src.find("{{"), std::string::npos);
    }
}

// Each switch names a template section: turning it on adds code, and a
// needed tracepoint is written SYSTEM:EVENT with the kernel it came in.
TEST(DelayProgram, EachFeatureSwitchRendersItsSection)
{
    for (const FeatureSwitch& s : kFeatureSwitches) {
        DelayProgramParams p = params();
        const std::string off = render_delay_program(p);
        p.features.*s.on = true;
        const std::string on = render_delay_program(p);
        EXPECT_GT(on.size(), off.size()) << s.name;
        EXPECT_EQ(std::string(s.flag).rfind("--", 0), 0u) << s.name;
        if (s.needs_tracepoint) {
            EXPECT_NE(std::string(s.needs_tracepoint).find(':'), std::string::npos) << s.name;
            EXPECT_TRUE(s.since) << s.name;
        }
    }
}

TEST(DelayProgram, LockContentionOnlyWithLocks)
{
    DelayProgramParams p = params();
    EXPECT_EQ(render_delay_program(p).find("RAW_TRACEPOINT_PROBE(contention_begin)"), std::string::npos);
    p.features.locks = true;
    const std::string src = render_delay_program(p);
    EXPECT_NE(src.find("RAW_TRACEPOINT_PROBE(contention_begin)"), std::string::npos);
    EXPECT_NE(src.find("RAW_TRACEPOINT_PROBE(contention_end)"), std::string::npos);
    EXPECT_NE(src.find("BPF_HASH(locks, struct kd_lock_key, struct kd_stat, " + std::to_string(p.sizes.locks) + ")"),
              std::string::npos);
}

// probes/delay.json attaches exactly the handlers the program has, with and
// without each feature switch: a hook without a handler fails to attach,
// a handler without a hook never runs.
TEST(DelayProgram, ProbeSetAttachesEveryHandlerOfTheProgram)
{
    for (bool on : {false, true}) {
        DelayProgramParams p = params();
        std::set<std::string> features;
        for (const FeatureSwitch& s : kFeatureSwitches) {
            p.features.*s.on = on;
            if (on)
                features.insert(s.name);
        }
        const std::string src = render_delay_program(p);
        std::set<std::string> handlers, hooks;
        const std::regex handler(R"(RAW_TRACEPOINT_PROBE\((\w+)\))");
        for (auto it = std::sregex_iterator(src.begin(), src.end(), handler); it != std::sregex_iterator(); ++it)
            handlers.insert((*it)[1]);
        for (const auto& probe : load_probe_set("delay", features))
            hooks.insert(probe.target);
        EXPECT_EQ(hooks, handlers) << "switches " << (on ? "on" : "off");
    }
}
