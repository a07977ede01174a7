#include "loader/btf_offsets.h"

#include "core/error.h"

#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>
#include <vector>

using namespace kdelay;

namespace {

// struct task_struct { long pad; union { int pid; }; struct { int tgid; char comm[16]; }; };
struct btf* synthetic_btf()
{
    struct btf* b = btf__new_empty();
    const int int_t = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
    const int long_t = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
    const int char_t = btf__add_int(b, "char", 1, BTF_INT_CHAR);
    const int arr_t = btf__add_array(b, int_t, char_t, 16);
    const int anon_union = btf__add_union(b, nullptr, 4);
    btf__add_field(b, "pid", int_t, 0, 0);
    const int anon_struct = btf__add_struct(b, nullptr, 20);
    btf__add_field(b, "tgid", int_t, 0, 0);
    btf__add_field(b, "comm", arr_t, 32, 0);
    btf__add_struct(b, "task_struct", 32);
    btf__add_field(b, "pad", long_t, 0, 0);
    btf__add_field(b, nullptr, anon_union, 64, 0);
    btf__add_field(b, nullptr, anon_struct, 96, 0);
    return b;
}

}  // namespace

TEST(KernelBtf, FindsMembersThroughAnonymousStructsAndUnions)
{
    KernelBtf btf(synthetic_btf());
    auto pid = btf.member("task_struct", "pid");
    auto tgid = btf.member("task_struct", "tgid");
    auto comm = btf.member("task_struct", "comm");
    ASSERT_TRUE(pid && tgid && comm);
    EXPECT_EQ(pid->offset, 8u);
    EXPECT_EQ(pid->size, 4u);
    EXPECT_EQ(tgid->offset, 12u);
    EXPECT_EQ(comm->offset, 16u);
    EXPECT_EQ(comm->size, 16u);
    EXPECT_FALSE(btf.member("task_struct", "nope"));
    EXPECT_FALSE(btf.member("no_such_struct", "pid"));
    EXPECT_THROW(btf.require("task_struct", "nope"), std::exception);
}

TEST(KernelBtf, RunningKernelLayoutIsSane)
{
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        GTEST_SKIP() << "no /sys/kernel/btf/vmlinux";
    KernelBtf btf;
    const KernelLayout l = read_kernel_layout(btf);
    EXPECT_EQ(l.task_pid.size, 4u);
    EXPECT_EQ(l.task_tgid.offset, l.task_pid.offset + 4);  // pid_t pid; pid_t tgid;
    EXPECT_EQ(l.task_comm.size, 16u);                      // TASK_COMM_LEN
    // sched_info: pcount, run_delay, ..., last_arrival, last_queued.
    EXPECT_LT(l.task_run_delay.offset, l.task_last_arrival.offset);
    EXPECT_EQ(l.task_last_queued.offset, l.task_last_arrival.offset + 8);
    EXPECT_GT(l.task_cfs_rq.offset, l.task_state.offset);  // inside se, after __state
    EXPECT_EQ(l.rq_clock.size, 8u);                        // u64 clock
    EXPECT_TRUE(l.task_state.size == 4 || l.task_state.size == 8);
    EXPECT_EQ(l.irqaction_name.size, 8u);                   // const char *
    EXPECT_EQ(l.regs_syscall_nr.size, sizeof(long));
    EXPECT_TRUE(l.switch_passes_prev_state);  // every kernel kdelay is tested on is 5.18+
}

TEST(KernelBtf, CountsARawTracepointsArguments)
{
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        GTEST_SKIP() << "no /sys/kernel/btf/vmlinux";
    KernelBtf btf;
    EXPECT_EQ(btf.raw_tracepoint_args("sys_enter"), 2);       // regs, id
    EXPECT_EQ(btf.raw_tracepoint_args("sched_wakeup"), 1);    // the task
    EXPECT_GE(btf.raw_tracepoint_args("sched_switch"), 4);    // preempt, prev, next, prev_state
    EXPECT_EQ(btf.raw_tracepoint_args("no_such_tracepoint"), -1);
}

TEST(KernelBtf, CgroupLayoutLeadsFromATaskToItsCgroup)
{
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0)
        GTEST_SKIP() << "no /sys/kernel/btf/vmlinux";
    KernelBtf btf;
    const CgroupLayout v2 = read_cgroup_layout(btf, "");
    EXPECT_EQ(v2.subsys, -1) << "cgroup2: the css_set's default cgroup";
    EXPECT_EQ(v2.task_cgroups.size, 8u);
    EXPECT_EQ(v2.cgroup_parent.size, 8u);
    EXPECT_EQ(v2.kernfs_id.size, 8u);
    const CgroupLayout pids = read_cgroup_layout(btf, "pids");
    EXPECT_EQ(pids.subsys, btf.enum_value("cgroup_subsys_id", "pids_cgrp_id").value_or(-2));
    EXPECT_GE(pids.subsys, 0);
    EXPECT_LT(static_cast<uint32_t>(pids.subsys) * 8, pids.css_set_subsys.size) << "an element of subsys[]";
    EXPECT_THROW(read_cgroup_layout(btf, "no_such_controller"), Error);
}

namespace {

// struct cfs_rq and struct rq with the throttle fields of one kernel:
// names[0] the count of throttles ended, names[1] the start of the one
// under way, names[2] the run queue's clock they are in.
struct btf* throttle_btf(const std::vector<std::vector<const char*>>& counts)
{
    struct btf* b = btf__new_empty();
    const int int_t = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
    const int u64_t = btf__add_int(b, "u64", 8, 0);
    btf__add_struct(b, "cfs_rq", 8 + 16 * counts.size());
    btf__add_field(b, "throttle_count", int_t, 0, 0);
    for (size_t i = 0; i < counts.size(); ++i) {
        btf__add_field(b, counts[i][1], u64_t, static_cast<uint32_t>(64 + 128 * i), 0);
        btf__add_field(b, counts[i][0], u64_t, static_cast<uint32_t>(128 + 128 * i), 0);
    }
    btf__add_struct(b, "rq", 8 + 8 * counts.size());
    btf__add_field(b, "clock", u64_t, 0, 0);
    for (size_t i = 0; i < counts.size(); ++i)
        if (std::string(counts[i][2]) != "clock")
            btf__add_field(b, counts[i][2], u64_t, static_cast<uint32_t>(64 + 64 * i), 0);
    return b;
}

}  // namespace

// The run queue's own count of its throttled time, in the clock it is kept
// in: 6.6's where there, else the task clock's, else the load-tracking
// clock's (Debian's 5.10, 5.19 to 6.5); none without CFS bandwidth.
TEST(KernelBtf, ThrottledTimeIsTheBestCountTheKernelKeeps)
{
    const std::vector<const char*> self = {"throttled_clock_self_time", "throttled_clock_self", "clock"};
    const std::vector<const char*> task = {"throttled_clock_task_time", "throttled_clock_task", "clock_task"};
    const std::vector<const char*> pelt = {"throttled_clock_pelt_time", "throttled_clock_pelt", "clock_pelt"};
    {
        KernelBtf btf(throttle_btf({pelt, self}));
        const auto t = read_throttle_layout(btf);
        ASSERT_TRUE(t);
        EXPECT_EQ(t->ended.offset, 32u);
        EXPECT_EQ(t->since.offset, 24u);
        EXPECT_EQ(t->count.offset, 0u);
        EXPECT_EQ(t->clock.offset, 0u);  // rq.clock
    }
    {
        KernelBtf btf(throttle_btf({pelt}));
        const auto t = read_throttle_layout(btf);
        ASSERT_TRUE(t);
        EXPECT_EQ(t->ended.offset, 16u);
        EXPECT_EQ(t->clock.offset, 8u);  // rq.clock_pelt
    }
    {
        KernelBtf btf(throttle_btf({task}));
        ASSERT_TRUE(read_throttle_layout(btf));
        EXPECT_EQ(read_throttle_layout(btf)->clock.offset, 8u);  // rq.clock_task
    }
    KernelBtf none(throttle_btf({}));
    EXPECT_FALSE(read_throttle_layout(none));
}
