/* kdelay's PID namespace probe: when kdelay runs in a PID namespace of its
 * own, the target's processes are given by the PIDs it sees there, and eBPF
 * sees the kernel's. Each time a thread of kdelay's namespace is switched
 * out, its ids there are compared with the target's (targets.bpf.h, as
 * kdelay sees them), or its cgroup with the target's, and a target
 * thread's kernel ids are kept. The map is an LRU: a thread that exited is
 * never looked up again and its entry goes first, so a watch of days with
 * threads coming and going never fills it; the ids of a kernel tid that
 * a new thread uses again are learnt again.
 * kd_config.h gives the namespace (NS_DEV, NS_INO). */
#include "kd_config.h"
#include "pidns_abi.h"
#include "targets.bpf.h"

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
