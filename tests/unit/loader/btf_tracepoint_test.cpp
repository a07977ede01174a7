#include "loader/btf_tracepoint.h"

#include <bcc/BPF.h>
#include <bpf/bpf.h>
#include <chrono>
#include <gtest/gtest.h>
#include <string>
#include <thread>
#include <unistd.h>

#include "loader/btf_offsets.h"
#include "loader/session.h"
#include "core/error.h"

using namespace kdelay;

namespace {

// A tp_btf program on sched_switch that reads next's tgid with a plain load
// (a raw tracepoint's verifier would reject it) and counts the switches to
// this process.
std::string switch_counter()
{
    const KernelLayout layout = read_kernel_layout(KernelBtf());
    return "BPF_ARRAY(switches_in, u64, 1);\n"
           "int tp_btf__sched_switch(struct bpf_raw_tracepoint_args *ctx)\n"
           "{\n"
           "    void *next = (void *)ctx->args[2];\n"
           "    u32 tgid = *(u32 *)((char *)next + " + std::to_string(layout.task_tgid.offset) + ");\n"
           "    int zero = 0;\n"
           "    u64 *n = switches_in.lookup(&zero);\n"
           "    if (n && tgid == " + std::to_string(getpid()) + ")\n"
           "        __sync_fetch_and_add(n, 1);\n"
           "    return 0;\n"
           "}\n";
}

uint64_t switches_in(BpfSession& session)
{
    uint64_t n = 0;
    EXPECT_TRUE(session.bpf().get_array_table<uint64_t>("switches_in").get_value(0, n).ok());
    return n;
}

}  // namespace

TEST(BtfTracepoint, LoadsWithTypedTaskPointersAndCountsTheProcesssSwitches)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to load eBPF";
    BpfSession session(switch_counter());
    session.attach({ProbeSpec{ProbeSpec::Type::btf_tracepoint, "sched_switch", "tp_btf__sched_switch", "", ""}});
    const uint64_t before = switches_in(session);
    // Each sleep ends with a switch to this thread.
    for (int i = 0; i < 20; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_GE(switches_in(session) - before, 20u);
}

// A step (tp_btf__EVENT__STEP) is a second program on the event, attached
// after the first, and it runs after it at each event: the timeline's
// record of a switch reads what tp_btf__sched_switch wrote.
TEST(BtfTracepoint, AStepAttachedAfterTheEventsProgramRunsAfterIt)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to load eBPF";
    const std::string next_tid = "*(u32 *)((char *)ctx->args[2] + " +
                                 std::to_string(read_kernel_layout(KernelBtf()).task_pid.offset) + ")";
    BpfSession session("BPF_PERCPU_ARRAY(seen, u32, 1);\n"
                       "BPF_ARRAY(order, u64, 2);  /* the step saw this switch's next; it saw another */\n"
                       "int tp_btf__sched_switch(struct bpf_raw_tracepoint_args *ctx)\n"
                       "{\n"
                       "    int zero = 0;\n"
                       "    u32 *s = seen.lookup(&zero);\n"
                       "    if (s)\n"
                       "        *s = " + next_tid + ";\n"
                       "    return 0;\n"
                       "}\n"
                       "int tp_btf__sched_switch__after(struct bpf_raw_tracepoint_args *ctx)\n"
                       "{\n"
                       "    int zero = 0;\n"
                       "    u32 *s = seen.lookup(&zero);\n"
                       "    if (!s)\n"
                       "        return 0;\n"
                       "    int which = *s == " + next_tid + " ? 0 : 1;\n"
                       "    u64 *n = order.lookup(&which);\n"
                       "    if (n)\n"
                       "        __sync_fetch_and_add(n, 1);\n"
                       "    return 0;\n"
                       "}\n");
    session.attach({ProbeSpec{ProbeSpec::Type::btf_tracepoint, "sched_switch", "tp_btf__sched_switch", "", ""},
                    ProbeSpec{ProbeSpec::Type::btf_tracepoint, "sched_switch", "tp_btf__sched_switch__after", "", ""}});
    for (int i = 0; i < 20; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    auto order = session.bpf().get_array_table<uint64_t>("order");
    uint64_t after = 0, before = 0;
    ASSERT_TRUE(order.get_value(0, after).ok());
    ASSERT_TRUE(order.get_value(1, before).ok());
    EXPECT_GE(after, 20u);
    EXPECT_EQ(before, 0u) << "the step ran before the event's program at " << before << " of " << after + before
                          << " switches";
}

TEST(BtfTracepoint, AnUnknownTracepointIsAnAttachErrorNamingIt)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to load eBPF";
    BpfSession session("int tp_btf__no_such_event(struct bpf_raw_tracepoint_args *ctx) { return 0; }\n");
    try {
        session.attach({ProbeSpec{ProbeSpec::Type::btf_tracepoint, "no_such_event", "tp_btf__no_such_event", "", ""}});
        FAIL() << "attached to a tracepoint that does not exist";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::oserr);
        EXPECT_NE(std::string(e.what()).find("tp_btf__no_such_event"), std::string::npos) << e.what();
    }
}
