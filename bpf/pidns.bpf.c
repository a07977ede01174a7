/* kdelay's PID namespace probe: when kdelay runs in a PID namespace of its
 * own, the target's processes are given by the PIDs it sees there, and eBPF
 * sees the kernel's. Each time a thread of kdelay's namespace is switched
 * out, its ids there are compared with the target's (targets.bpf.h, as
 * kdelay sees them), or its cgroup with the target's, and a target
 * thread's kernel ids are kept. The map is an LRU: a thread that exited is
 * never looked up again and its entry goes first, so a watch of days with
 * threads coming and going never fills it; the ids of a kernel tid that
 * a new thread uses again are learnt again.
 * A target idle since kdelay started is learnt at once by the task
 * iterator below, where the kernel has one (TASK_ITERATOR).
 * kd_config.h gives the namespace (NS_DEV, NS_INO). */
#include "kd_config.h"
#include "pidns_abi.h"
#include "targets.bpf.h"
#include "kd_config_names.h"

KD_REQUIRE_OFFSETS(KD_PIDNS_OFFSETS)
KD_REQUIRE_CONFIG(KD_PIDNS_CONFIG)

BPF_TABLE("lru_hash", __u32, struct kd_ns_thread, ns_threads, KD_NS_THREADS);

RAW_TRACEPOINT_PROBE(sched_switch)
{
    struct bpf_pidns_info seen = {};
    /* Fails for a task of another namespace: most of the machine's. */
    if (bpf_get_ns_current_pid_tgid(NS_DEV, NS_INO, &seen, sizeof(seen)) || !is_target_current(seen.tgid))
        return 0;
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tid = (__u32)id;
    struct kd_ns_thread *known = ns_threads.lookup(&tid);
    if (known && known->tid == seen.pid && known->tgid == seen.tgid && known->kernel_tgid == id >> 32)
        return 0;
    struct kd_ns_thread t = { .tid = seen.pid, .tgid = seen.tgid, .kernel_tgid = id >> 32 };
    ns_threads.update(&tid, &t);
    return 0;
}

#if TASK_ITERATOR
/* The task iterator's context, as the kernel lays it out. */
struct kd_iter_task_ctx {
    void *meta;
    void *task;
};

/* nr of the struct pid at pid in the namespace at `level`, if that is
 * kdelay's (NS_INO); 0 when it is not. */
static __always_inline __u32 nr_in_our_namespace(void *pid, __u32 level)
{
    __u32 pid_level = 0;
    if (!pid || bpf_probe_read_kernel(&pid_level, sizeof(pid_level), (char *)pid + PID_LEVEL_OFF) ||
        pid_level < level)
        return 0;
    char *upid = (char *)pid + PID_NUMBERS_OFF + (__u64)level * UPID_SIZE;
    int nr = 0;
    void *ns = 0;
    __u32 inum = 0;
    if (bpf_probe_read_kernel(&nr, sizeof(nr), upid + UPID_NR_OFF) ||
        bpf_probe_read_kernel(&ns, sizeof(ns), upid + UPID_NS_OFF) || !ns ||
        bpf_probe_read_kernel(&inum, sizeof(inum), (char *)ns + PIDNS_INUM_OFF) || inum != NS_INO)
        return 0;
    return nr;
}

static __always_inline void *read_pointer(void *object, __u64 off)
{
    void *p = 0;
    bpf_probe_read_kernel(&p, sizeof(p), (char *)object + off);
    return p;
}

/* Every task, when kdelay reads the iterator at its start: a thread of
 * kdelay's namespace that is one of the target's has its ids kept, as the
 * switch probe keeps them, without waiting for it to run. kdelay is the
 * current task: its own level is the namespace's. */
int bpf_iter__task(struct kd_iter_task_ctx *ctx)
{
    void *task = (void *)typed_u64(ctx, 8);
    if (!task)
        return 0;
    __u32 level = 0;
    void *own = read_pointer((void *)bpf_get_current_task(), TASK_THREAD_PID_OFF);
    if (!own || bpf_probe_read_kernel(&level, sizeof(level), (char *)own + PID_LEVEL_OFF))
        return 0;
    __u32 tid = nr_in_our_namespace(read_pointer(task, TASK_THREAD_PID_OFF), level);
    void *leader = read_pointer(task, TASK_GROUP_LEADER_OFF);
    __u32 tgid = leader ? nr_in_our_namespace(read_pointer(leader, TASK_THREAD_PID_OFF), level) : 0;
    if (!tid || !tgid || !is_target_task(task, tgid))
        return 0;
    __u32 kernel_tid = 0, kernel_tgid = 0;
    bpf_probe_read_kernel(&kernel_tid, sizeof(kernel_tid), (char *)task + TASK_PID_OFF);
    bpf_probe_read_kernel(&kernel_tgid, sizeof(kernel_tgid), (char *)task + TASK_TGID_OFF);
    struct kd_ns_thread t = { .tid = tid, .tgid = tgid, .kernel_tgid = kernel_tgid };
    ns_threads.update(&kernel_tid, &t);
    return 0;
}
#endif
