#include "loader/btf_offsets.h"

#include "core/error.h"

#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <unistd.h>

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
