// Kernel struct layouts from BTF (never from headers, which may not match
// the running kernel).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct btf;

namespace kdelay {

struct MemberLayout {
    uint32_t offset;  // bytes from the start of the struct
    uint32_t size;    // bytes
};

// The running kernel's BTF, parsed once for the process (the offsets and the
// tp_btf loads share it) and kept; nullptr when the kernel has none.
const struct btf* vmlinux_btf();

class KernelBtf {
public:
    // The running kernel's (vmlinux_btf()). Throws Error(Exit::osfile) if absent.
    KernelBtf();
    // Takes ownership of an already built BTF object (used by tests).
    explicit KernelBtf(struct btf* owned);
    ~KernelBtf();
    KernelBtf(const KernelBtf&) = delete;
    KernelBtf& operator=(const KernelBtf&) = delete;

    // Finds member in struct or union type_name, looking through anonymous
    // members the way C does. nullopt when the type or member is absent.
    std::optional<MemberLayout> member(const std::string& type_name,
                                       const std::string& member_name) const;

    // Whether the kernel has a raw tracepoint of this name (btf_trace_NAME).
    bool has_raw_tracepoint(const std::string& name) const;
    // How many arguments the raw tracepoint passes (ctx->args[]), or -1
    // when there is no such tracepoint.
    int raw_tracepoint_args(const std::string& name) const;
    // The size of struct type_name; nullopt when there is none.
    std::optional<uint32_t> struct_size(const std::string& type_name) const;
    // Whether the kernel has a function of this name (BTF_KIND_FUNC).
    bool has_function(const std::string& name) const;

    // As member(), but throws Error(Exit::osfile) naming what is missing.
    MemberLayout require(const std::string& type_name, const std::string& member_name) const;

    // The value of enumerator name in enum type_name; nullopt when absent.
    std::optional<int64_t> enum_value(const std::string& type_name, const std::string& name) const;

private:
    const struct btf* btf_;
    struct btf* owned_ = nullptr;
};

// The kernel fields the delay program reads.
struct KernelLayout {
    MemberLayout task_pid;
    MemberLayout task_tgid;
    MemberLayout task_state;  // __state since 5.14, state before
    MemberLayout task_comm;
    // The kernel's run-queue accounting of the task (sched_info,
    // CONFIG_SCHED_INFO), in its run queue's clock: the total of its ended
    // waits for a CPU, when it last got one, and since when it waits now
    // (0: not queued).
    MemberLayout task_run_delay;
    MemberLayout task_last_arrival;
    MemberLayout task_last_queued;
    // The way to that clock from a task: se.cfs_rq, then cfs_rq.rq, then
    // rq.clock (CONFIG_FAIR_GROUP_SCHED).
    MemberLayout task_cfs_rq;
    MemberLayout cfs_rq_rq;
    MemberLayout rq_clock;
    MemberLayout rq_cpu;  // the CPU of a run queue a wakeup enqueues on
    MemberLayout irqaction_name;
    MemberLayout regs_syscall_nr;  // pt_regs.orig_ax (x86), .syscallno (arm64)
    MemberLayout regs_return;      // pt_regs.ax (x86), .regs (arm64: x0 first)
    // The user stack pointer at a syscall (x86: pt_regs.sp); absent where
    // pt_regs names it otherwise, and --stall then tells no call sites apart.
    std::optional<MemberLayout> regs_sp;
    // The task's own count of voluntary and involuntary context switches,
    // as getrusage() gives them (--stall reports them per interval).
    MemberLayout task_nvcsw;
    MemberLayout task_nivcsw;
    // Its process's main thread, whose name is the process's (--metrics).
    MemberLayout task_group_leader;
    // sched_switch passes prev's state as its fourth argument (5.18+), so
    // it needs no read of the task.
    bool switch_passes_prev_state;
    // --budget: the task iterator (5.8+) reads each thread at a window's
    // end, and task_struct.on_cpu (an int, a u8 on newer kernels) tells
    // one running from one waiting.
    std::optional<MemberLayout> task_on_cpu;
    bool task_iterator = false;
    // bpf_task_pt_regs() (5.15+): --stall reads the syscall a switched task
    // is in from its pt_regs, the kernel's own record.
    bool task_pt_regs = false;
    // --stack-copy: a sample's user registers. Where the kernel saved them
    // at its entry, before bpf_task_pt_regs(): the top of task_struct.stack,
    // thread_size bytes long. cs tells user registers from the kernel's.
    std::optional<MemberLayout> regs_cs;
    uint32_t pt_regs_size = 0;
    std::optional<MemberLayout> task_stack;
    uint32_t thread_size = 0;
    // --budget: where a group run queue (cfs_rq) counts the time it was
    // throttled by a CPU bandwidth limit, its own or an ancestor's
    // (CONFIG_CFS_BANDWIDTH): the throttles ended, when the one under way
    // began, its throttle_count, and the run queue's clock they are in.
    // 6.6+: throttled_clock_self{,_time}, in rq.clock; older kernels:
    // throttled_clock_task{,_time}, in rq.clock_task, or (5.19 to 6.5, and
    // stable kernels with that change, as Debian's 5.10) the same count in
    // the load-tracking clock, throttled_clock_pelt{,_time} in
    // rq.clock_pelt: the task clock where the CPU's frequency is not scaled
    // (a VM), slower while the CPU is busy at a lower frequency, caught up
    // when it idles. nullopt without CONFIG_CFS_BANDWIDTH.
    struct Throttle {
        MemberLayout ended;
        MemberLayout since;
        MemberLayout count;
        MemberLayout clock;
    };
    std::optional<Throttle> throttle;
    // rq.prev_steal_time_rq (CONFIG_PARAVIRT_TIME_ACCOUNTING): the time
    // the hypervisor stole from the CPU, as its run queue's clock has seen.
    std::optional<MemberLayout> rq_steal;
    // The DWARF registers' places in pt_regs (sys/dwarf_unwind.h's order);
    // empty where pt_regs lacks one (not x86-64).
    std::vector<uint32_t> regs_dwarf;
};

KernelLayout read_kernel_layout(const KernelBtf& btf);
// KernelLayout's throttle: the first count the kernel has, of the three.
std::optional<KernelLayout::Throttle> read_throttle_layout(const KernelBtf& btf);

// Where a task's ids in a PID namespace are: task_struct.thread_pid (the
// thread's struct pid) and .group_leader; pid.level and pid.numbers (a
// struct upid a level: nr, ns); the namespace's inode number
// (pid_namespace.ns.inum). nullopt when the kernel lays them out otherwise
// or has no task iterator to read them with.
struct PidNsLayout {
    MemberLayout task_thread_pid;
    MemberLayout task_group_leader;
    MemberLayout task_tgid;
    MemberLayout pid_level;
    MemberLayout pid_numbers;
    uint32_t upid_size;
    MemberLayout upid_nr;
    MemberLayout upid_ns;
    uint32_t pidns_inum;  // offset of ns.inum in struct pid_namespace
};
std::optional<PidNsLayout> read_pidns_layout(const KernelBtf& btf);

// Where a bio says its disk and sector: for kernels without block_io_start
// (before 6.5), whose requests start at block_bio_queue, in the issuer.
struct BioLayout {
    MemberLayout bio_bdev;     // bio.bi_bdev
    MemberLayout bio_sector;   // bio.bi_iter.bi_sector, from the start of bio
    MemberLayout bdev_disk;    // block_device.bd_disk
};

// The request, queue and disk fields the block I/O programs read.
struct BlockLayout {
    MemberLayout rq_q;
    MemberLayout rq_sector;
    MemberLayout rq_flags;
    MemberLayout queue_disk;
    MemberLayout disk_major;
    MemberLayout disk_minor;
    // Set when the kernel has no block_io_start: the start is then taken at
    // block_bio_queue, and at block_rq_insert for requests made without a bio.
    std::optional<BioLayout> bio;
};

// The way from a task to its cgroup and up to the root, for a cgroup
// target: task->cgroups (a css_set), then its cgroup2 cgroup (dfl_cgrp) or
// a v1 controller's css (subsys[subsys]) and that css's cgroup; a cgroup's
// id is cgroup->kn->id, its name cgroup->kn->name, its parent
// cgroup->self.parent.
struct CgroupLayout {
    MemberLayout task_cgroups;
    MemberLayout css_set_dfl_cgrp;
    MemberLayout css_set_subsys;  // the array's first element
    MemberLayout css_cgroup;
    MemberLayout cgroup_kn;
    MemberLayout cgroup_parent;  // self.parent, a css at the start of its cgroup
    MemberLayout kernfs_id;
    MemberLayout kernfs_name;  // a char *
    int subsys = -1;  // the v1 controller's cgroup_subsys_id; -1: cgroup2
};

// The layout for a cgroup of controller's v1 hierarchy, or of cgroup2 when
// controller is empty. Throws Error(Exit::osfile) for what BTF lacks.
CgroupLayout read_cgroup_layout(const KernelBtf& btf, const std::string& controller);

// nullopt when the kernel has no block tracepoints or lacks a field.
// What read_block_layout() needs of a kernel, for the line that says it is missing.
inline constexpr const char* kBlockLayoutNeeds =
    "block tracepoints that pass the request alone and a request queue that knows its disk (Linux 5.15 or later)";
std::optional<BlockLayout> read_block_layout(const KernelBtf& btf);

}  // namespace kdelay
