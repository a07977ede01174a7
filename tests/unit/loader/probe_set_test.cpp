#include "loader/probe_set.h"

#include <gtest/gtest.h>
#include <set>

#include "core/error.h"

using namespace kdelay;

// Which hooks the set names is checked against the rendered program's
// handlers (tests/unit/delay/program_test.cpp); here, their shape.
TEST(ProbeSet, EmbeddedDelaySetIsRawTracepointsNamedForTheirHandlers)
{
    std::set<std::string> typed;
    for (const auto& p : load_probe_set("delay", {"budget", "locks"})) {
        if (p.type == ProbeSpec::Type::btf_tracepoint) {
            EXPECT_EQ(p.function, "tp_btf__" + p.target);  // "timeline"'s step is not asked for
            typed.insert(p.target);
            continue;
        }
        EXPECT_EQ(p.type, ProbeSpec::Type::raw_tracepoint);
        EXPECT_EQ(p.function, "raw_tracepoint__" + p.target);
    }
    // Every tracepoint passed a task: its ids are read with plain loads.
    const std::set<std::string> passed_a_task = {"sched_switch", "sched_wakeup", "sched_wakeup_new",
                                                 "task_rename", "sched_migrate_task"};
    EXPECT_EQ(typed, passed_a_task);
}

TEST(ProbeSet, MalformedSetsAreRejected)
{
    const std::vector<std::string> bad = {
        "{",
        R"j({"probes":[{"type":"fentry","target":"a","function":"f"}]})j",
        R"j({"probes":[{"type":"tracepoint","target":"a:b"}]})j",
        R"j({"probes":[{"type":"tracepoint","target":"a:b","function":"f()"}]})j",
        R"j({"probes":[{"type":"tp_btf","target":"sched_switch","function":"tp_btf__sched_wakeup"}]})j",
        R"j({"probes":[{"type":"tp_btf","target":"sched_switch","function":"tp_btf__sched_switch_after"}]})j",
    };
    for (const auto& json : bad) {
        bool threw = false;
        try {
            parse_probe_set("x", json);
        } catch (const Error&) {
            threw = true;
        }
        EXPECT_TRUE(threw) << json;
    }
    EXPECT_EQ(parse_probe_set("x", R"j({"probes":[]})j").size(), 0u);
}

TEST(ProbeSet, BlockSetAddsTheBioStartOnlyForKernelsThatNeedIt)
{
    auto functions = [](const std::vector<ProbeSpec>& probes) {
        std::vector<std::string> f;
        for (const auto& p : probes)
            f.push_back(p.function + "@" + p.target + (p.fallback.empty() ? "" : "|" + p.fallback));
        return f;
    };
    EXPECT_EQ(functions(load_probe_set("block")),
              (std::vector<std::string>{"kd_block_start@block_io_start|block_rq_insert",
                                        "kd_block_issue@block_rq_issue",
                                        "kd_block_complete@block_rq_complete"}));
    EXPECT_EQ(functions(load_probe_set("block", {"bio_queue"})),
              (std::vector<std::string>{"kd_block_start@block_io_start|block_rq_insert",
                                        "kd_block_bio_start@block_bio_queue",
                                        "kd_block_issue@block_rq_issue",
                                        "kd_block_complete@block_rq_complete"}));
}

TEST(ProbeSet, UpcallSetAttachesExactlyOneHook)
{
    EXPECT_TRUE(load_probe_set("upcall").empty()) << "nothing without a feature";
    const auto kret = load_probe_set("upcall", {"kretprobe"});
    ASSERT_EQ(kret.size(), 1u);
    EXPECT_EQ(kret[0].type, ProbeSpec::Type::kretprobe);
    EXPECT_EQ(kret[0].target, "ovs_dp_upcall");
    EXPECT_EQ(kret[0].function, "kd_upcall_return");
    const auto tp = load_probe_set("upcall", {"tracepoint"});
    ASSERT_EQ(tp.size(), 1u);
    EXPECT_EQ(tp[0].type, ProbeSpec::Type::tracepoint);
    EXPECT_EQ(tp[0].target, "openvswitch:ovs_dp_upcall");
    EXPECT_EQ(tp[0].function, "kd_upcall_seen");
}
