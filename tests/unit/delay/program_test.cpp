#include "delay/program.h"

#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "loader/probe_set.h"
#include "delay/section.h"
#include "delay_abi.h"

#include "../loader/preprocess.h"
#include "test_params.h"

using namespace kdelay;

namespace {

DelayProgramParams params() { return kdtest::program_params(); }

// The program as the compiler sees it, with this config's parts only.
std::string compiled(const DelayProgramParams& p) { return kdtest::preprocessed(render_delay_program(p)); }

// The programs of every switch off, every switch on, and every switch on
// for --stall --timeline (a second program on sched_switch), by name.
std::vector<std::pair<std::string, DelayProgramParams>> switch_variants()
{
    std::vector<std::pair<std::string, DelayProgramParams>> all;
    for (const char* name : {"switches off", "switches on", "switches on, with --stall --timeline"}) {
        DelayProgramParams p = params();
        if (!all.empty())
            for (const FeatureSwitch* s : feature_switches())
                s->turn_on(p.features);
        if (all.size() == 2) {
            p.stall = 1000000;
            p.features.budget = true;
            p.features.timeline = true;
        }
        all.emplace_back(name, p);
    }
    return all;
}

}  // namespace

// kd_config.h comes first, #defines only, from the parameters.
TEST(DelayProgram, OffsetsAndTargetComeFromParameters)
{
    const std::string src = render_delay_program(params());
    EXPECT_EQ(src.rfind("/* ---- kd_config.h ---- */\n#define ", 0), 0u);
    EXPECT_NE(src.find("#define TARGET_TGIDS 1\n#define TARGET_TGID_0 4321\n"), std::string::npos);
    EXPECT_NE(src.find("#define POLL_NR 7\n"), std::string::npos);
    EXPECT_NE(src.find("#define TASK_PID_OFF 1264\n"), std::string::npos);
    EXPECT_NE(src.find("#define TASK_TGID_OFF 1268\n"), std::string::npos);
    EXPECT_NE(src.find("#define TASK_STATE_TYPE __u32\n"), std::string::npos);
    EXPECT_NE(src.find("#define SWITCH_PASSES_PREV_STATE 1\n"), std::string::npos);
    EXPECT_NE(src.find("#define PT_REGS_NR_OFF 120\n"), std::string::npos);
    EXPECT_NE(src.find("#define PT_REGS_NR_TYPE __u64\n"), std::string::npos);
    const std::string cc = compiled(params());
    EXPECT_NE(cc.find("typedef __u32 kd_task_state_t;"), std::string::npos);
    EXPECT_NE(cc.find("typedef __u64 kd_regs_nr_t;"), std::string::npos);
    EXPECT_NE(cc.find("struct kd_thread {"), std::string::npos) << "the contract header inlined";
}

// Every part's includes are inlined, each file once; nothing else is
// included, and no template syntax is left.
TEST(DelayProgram, InlinesItsPartsOnceAndIncludesNoKernelHeaders)
{
    const std::string src = render_delay_program(params());
    EXPECT_EQ(src.find("#include"), std::string::npos);
    EXPECT_EQ(src.find("{{"), std::string::npos);
    for (const char* part : {"delay/core.bpf.h", "delay/budget.bpf.h", "delay/sched.bpf.c", "delay_abi.h"}) {
        const std::string marker = std::string("/* ---- ") + part + " ---- */\n";
        const size_t at = src.find(marker);
        EXPECT_NE(at, std::string::npos) << part;
        EXPECT_EQ(src.find(marker, at + 1), std::string::npos) << part << " twice";
    }
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
    std::string src = compiled(p);
    EXPECT_EQ(src.find("kd_start_trigger"), std::string::npos);
    EXPECT_EQ(src.find("kd_stop_trigger"), std::string::npos);
    EXPECT_EQ(src.find("BPF_RINGBUF_OUTPUT"), std::string::npos);

    p.start_trigger = true;
    src = compiled(p);
    EXPECT_NE(src.find(std::string("int ") + kStartTriggerFunction + "(void *ctx)"), std::string::npos);
    EXPECT_EQ(src.find(kStopTriggerFunction), std::string::npos);
    p.stop_trigger = true;
    src = compiled(p);
    EXPECT_NE(src.find(std::string("int ") + kStopTriggerFunction + "(void *ctx)"), std::string::npos);
}

TEST(DelayProgram, SyscallEventsRenderTheRingBufferThresholdAndStacks)
{
    auto p = params();
    p.features.syscall_events = 5000;
    p.features.buffer_page_count = 256;
    p.features.stack_trace_size = 1024;
    std::string src = compiled(p);
    EXPECT_NE(src.find("BPF_RINGBUF_OUTPUT(events, 256);"), std::string::npos);
    EXPECT_NE(src.find("(5000 && now - entry <= 5000) || (0 && key->nr == 7)"), std::string::npos);
    EXPECT_NE(src.find("BPF_STACK_TRACE(stack_traces, 1024);"), std::string::npos);
    EXPECT_NE(src.find("get_stackid(ctx, BPF_F_USER_STACK)"), std::string::npos);

    p.features.skip_syscall_poll_events = true;
    p.features.stack_trace_size = 0;
    src = compiled(p);
    EXPECT_NE(src.find("|| (1 && key->nr == 7)"), std::string::npos);
    EXPECT_EQ(src.find("BPF_STACK_TRACE"), std::string::npos);
    EXPECT_EQ(src.find("get_stackid"), std::string::npos);
}

TEST(DelayProgram, BlockStartFromBiosOnlyOnKernelsWithoutBlockIoStart)
{
    DelayProgramParams p = params();
    p.block = BlockLayout{{104, 8}, {48, 8}, {24, 4}, {1064, 8}, {0, 4}, {4, 4}, std::nullopt};
    const std::string modern = compiled(p);
    EXPECT_EQ(modern.find("kd_block_bio_start"), std::string::npos);
    EXPECT_NE(modern.find("return block_started(key, 0);"), std::string::npos) << "block_io_start overwrites";

    p.block->bio = BioLayout{{8, 8}, {40, 8}, {936, 8}};
    const std::string legacy = compiled(p);
    EXPECT_NE(legacy.find("int kd_block_bio_start("), std::string::npos);
    EXPECT_NE(legacy.find("kd_read_u64((char *)bio + 8)"), std::string::npos);
    EXPECT_NE(legacy.find("kd_read_u64((char *)bdev + 936)"), std::string::npos);
    EXPECT_NE(legacy.find("kd_read_u64((char *)bio + 40)"), std::string::npos);
    // block_rq_insert keeps the earlier start taken at block_bio_queue.
    EXPECT_NE(legacy.find("return block_started(key, 1);"), std::string::npos);
}

// A kernel without the block layout kdelay reads (5.10: block_rq_issue still
// passes the queue first, and the request queue has no disk) gets no block
// code at all (the contract's types stay, unused).
TEST(DelayProgram, NoBlockLayoutMeansNoBlockCode)
{
    DelayProgramParams p = params();
    p.block = std::nullopt;
    const std::string src = compiled(p);
    EXPECT_EQ(src.find("kd_block_complete"), std::string::npos);
    EXPECT_EQ(src.find("BPF_HASH(bio_start"), std::string::npos);
    EXPECT_EQ(src.find("BPF_HASH(blockio"), std::string::npos);
}

TEST(DelayProgram, SlotsAreClaimedOnlyWithCompareAndSwap)
{
    DelayProgramParams p = params();
    EXPECT_NE(compiled(p).find("__sync_val_compare_and_swap(&t->tid, 0, tid)"), std::string::npos);
    EXPECT_NE(compiled(p).find("slot_claim(t, tid)"), std::string::npos);
    p.compare_and_swap = false;
    EXPECT_EQ(compiled(p).find("__sync_val_compare_and_swap"), std::string::npos);
}

TEST(DelayProgram, UpcallCountersOnlyWhenAHookIsPlanned)
{
    DelayProgramParams p = params();
    const std::string none = compiled(p);
    EXPECT_EQ(none.find("kd_upcall_return"), std::string::npos);
    EXPECT_EQ(none.find("BPF_HASH(upcalls"), std::string::npos);
    for (auto probe : {UpcallPlan::Probe::kretprobe, UpcallPlan::Probe::tracepoint}) {
        p.upcalls = probe;
        const std::string src = compiled(p);
        EXPECT_NE(src.find("*(__u64 *)((char *)ctx + 80)"), std::string::npos);
        EXPECT_NE(src.find("int kd_upcall_return(void *ctx)"), std::string::npos);
        EXPECT_NE(src.find("int kd_upcall_seen(void *ctx)"), std::string::npos);
    }
}

// Each switch turns on code of the program (WITH_NAME), and a
// needed tracepoint is written SYSTEM:EVENT with the kernel it came in.
TEST(DelayProgram, EachFeatureSwitchRendersItsSection)
{
    std::set<std::string> names;
    for (const FeatureSwitch* s : feature_switches()) {
        EXPECT_TRUE(names.insert(s->name).second) << s->name << " twice";
        DelayProgramParams p = params();
        const std::string off = compiled(p);
        s->turn_on(p.features);
        EXPECT_TRUE(s->is_on(p.features)) << s->name;
        const std::string on = compiled(p);
        EXPECT_GT(on.size(), off.size()) << s->name;
        EXPECT_EQ(std::string(s->flag).rfind("--", 0), 0u) << s->name;
        if (s->needs_tracepoint) {
            EXPECT_NE(std::string(s->needs_tracepoint).find(':'), std::string::npos) << s->name;
            EXPECT_TRUE(s->since) << s->name;
        }
    }
}

// A plug-in section's part is in the program only with its switch, with
// the counters the registry gave it and its maps sized, its rows keyed by
// kd_row_key.
TEST(DelayProgram, EachSectionRendersItsPartWithItsCountersAndSizes)
{
    std::set<int> full, hist;
    for (const RegisteredSection& s : registered_sections()) {
        const ThreadSection& d = *s.def;
        DelayProgramParams p = params();
        const std::string rows_map = std::string("BPF_HASH(") + d.maps.front().name + ", struct kd_row_key, struct kd_stat, " +
                                     std::to_string(section_map_size(d.maps.front(), p.sizes)) + ")";
        EXPECT_EQ(compiled(p).find(rows_map), std::string::npos) << d.on.name;
        d.on.turn_on(p.features);
        const std::string src = compiled(p);
        const std::string config = render_delay_program(p);
        EXPECT_NE(src.find(rows_map), std::string::npos) << d.on.name;
        ASSERT_EQ(s.full.size(), d.maps.size());
        for (size_t i = 0; i < d.maps.size(); ++i) {
            if (!d.maps[i].full_macro)
                continue;
            EXPECT_GE(s.full[i], KD_MAP_CORE_COUNT);
            EXPECT_LT(s.full[i], map_full_count());
            EXPECT_TRUE(full.insert(s.full[i]).second) << d.maps[i].name;
            EXPECT_NE(config.find("#define " + std::string(d.maps[i].full_macro) + " " + std::to_string(s.full[i]) + "\n"),
                      std::string::npos);
        }
        if (d.hist_macro) {
            EXPECT_GE(s.hist_kind, KD_HIST_CORE_KINDS);
            EXPECT_TRUE(hist.insert(s.hist_kind).second) << d.on.name;
            EXPECT_NE(config.find("#define " + std::string(d.hist_macro) + " " + std::to_string(s.hist_kind) + "\n"),
                      std::string::npos);
            EXPECT_TRUE(d.hist_name) << d.on.name;
        }
        EXPECT_NE(src.find("BPF_PERCPU_ARRAY(map_full, __u64, " + std::to_string(map_full_count()) + ")"),
                  std::string::npos);
    }
}

// probes/delay.json attaches exactly the handlers the program has, with and
// without each feature switch: a hook without a handler fails to attach,
// a handler without a hook never runs.
TEST(DelayProgram, ProbeSetAttachesEveryHandlerOfTheProgram)
{
    for (const auto& [variant, p] : switch_variants()) {
        const std::string src = compiled(p);
        std::set<std::string> handlers, hooks;
        // Each handler on a hook of its own kind: raw, or typed from BTF
        // (BTF_TRACEPOINT_PROBE and _STEP, expanded).
        const std::regex handler(R"(\n(RAW_TRACEPOINT_PROBE\((\w+)\)|int (tp_btf__\w+)\())");
        for (auto it = std::sregex_iterator(src.begin(), src.end(), handler); it != std::sregex_iterator(); ++it)
            handlers.insert((*it)[2].matched ? "raw_tracepoint__" + (*it)[2].str() : (*it)[3].str());
        for (const auto& probe : load_probe_set("delay", probes_on(p.features, p.stall.has_value()))) {
            const bool typed = probe.type == ProbeSpec::Type::btf_tracepoint;
            EXPECT_TRUE(typed || probe.type == ProbeSpec::Type::raw_tracepoint) << probe.function;
            hooks.insert(probe.function);
        }
        EXPECT_EQ(hooks, handlers) << variant;
    }
}

// A misspelt or forgotten switch in an #if would read as 0 and silently
// leave its part out: every name the kernel side tests is defined.
TEST(DelayProgram, EveryConditionNamesADefinedSwitch)
{
    for (const auto& [variant, p] : switch_variants()) {
        try {
            kdtest::preprocessed(render_delay_program(p), "-Wundef -Werror");
        } catch (const std::exception& e) {
            ADD_FAILURE() << variant << ": " << e.what();
        }
    }
}
