/* kdelay biosnoop: one event per block I/O, sent through a perf buffer.
 * kd_config.h (src/block/biosnoop.cpp) gives the offsets from BTF and the
 * filters: the target's processes (targets.bpf.h; none: every process) and
 * FILTER_DEV (0: every disk). */
#include "kd_config.h"
#include "block_abi.h"
#include "targets.bpf.h"
#include "block/block_io.bpf.h"
#include "kd_config_names.h"

KD_REQUIRE_CONFIG(KD_BIOSNOOP_CONFIG)

static __always_inline int bio_wanted(__u64 pid_tgid, __u32 dev)
{
    if (!is_target_current(pid_tgid >> 32))
        return 0;
    return !FILTER_DEV || dev == FILTER_DEV;
}

BPF_PERF_OUTPUT(events);

int kd_block_complete(struct bpf_raw_tracepoint_args *ctx)
{
    struct kd_bio_key key;
    struct kd_bio_start *s = bio_completed(ctx, &key);
    if (!s)
        return 0;

    struct kd_bio_event e = {};
    e.ts = bpf_ktime_get_ns();
    e.sector = key.sector;
    e.queue_ns = s->issue_ns ? s->issue_ns - s->start_ns : 0;
    e.device_ns = e.ts - (s->issue_ns ? s->issue_ns : s->start_ns);
    e.pid = s->pid;
    e.tid = s->tid;
    e.dev = key.dev;
    e.bytes = (__u32)ctx->args[2];
    e.op = rq_op((void *)ctx->args[0]);
    __builtin_memcpy(&e.comm, s->comm, sizeof(e.comm));
    bio_start.delete(&key);
    events.perf_submit(ctx, &e, sizeof(e));
    return 0;
}
