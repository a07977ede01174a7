/* ---- Open vSwitch upcalls, machine-wide (made in softirq context, on
 * behalf of no thread of the target) ---- */
#include "delay/core.bpf.h"

#if WITH_UPCALLS

BPF_HASH(upcalls, struct kd_upcall_key, __u64, 4096);

static __always_inline void upcall_count(__s32 ret)
{
    if (!capturing())
        return;
    struct kd_upcall_key key = { .cpu = bpf_get_smp_processor_id(), .ret = ret };
    __u64 zero = 0;
    __u64 *n = upcalls.lookup_or_try_init(&key, &zero);
    if (!n) {
        note_full(KD_MAP_UPCALLS);
        return;
    }
    __sync_fetch_and_add(n, 1);
}

/* kretprobe on ovs_dp_upcall(): its int result, from the return register. */
int kd_upcall_return(void *ctx)
{
    upcall_count((__s32)*(__u64 *)((char *)ctx + PT_REGS_RC_OFF));
    return 0;
}

/* openvswitch:ovs_dp_upcall, where kprobes are missing: a call, result unknown. */
int kd_upcall_seen(void *ctx)
{
    upcall_count(KD_UPCALL_RESULT_UNKNOWN);
    return 0;
}
#endif
