/* ---- block I/O issued by the target's threads ---- */
#include "delay/core.bpf.h"
#include "block/block_io.bpf.h"
#include "delay/timeline.bpf.h"

#if WITH_BLOCK
static __always_inline int bio_wanted(__u64 pid_tgid, __u32 dev)
{
    return target_capturing(pid_tgid) != 0;
}

BPF_HASH(blockio, struct kd_blockio_key, struct kd_blockio, MAX_BLOCKIO);

int kd_block_complete(struct bpf_raw_tracepoint_args *ctx)
{
    struct kd_bio_key key;
    struct kd_bio_start *s = bio_completed(ctx, &key);
    if (!s)
        return 0;
    struct kd_blockio_key bkey = { .tid = s->tid, .dev = key.dev, .op = rq_op((void *)ctx->args[0]) };
    __u64 started = s->start_ns;
    __u64 delta = bpf_ktime_get_ns() - started;
    bio_start.delete(&key);
    if (!capturing())
        return 0;
    kd_gen_t gen = tid_recording_gen(bkey.tid);
    if (!gen)
        return 0;
    bkey.tid = interval_tid(bkey.tid, gen);

    struct kd_blockio zero = {};
    struct kd_blockio *b = blockio.lookup_or_try_init(&bkey, &zero);
    if (!b) {
        note_full(KD_MAP_BLOCKIO);
        return 0;
    }
    KD_FRESH(b, stat.gen, gen);
    stat_add(&b->stat, delta);
    b->bytes += (__u32)ctx->args[2];
    struct kd_tl_event *e = timeline_slice(KD_KEY_THREAD(bkey.tid), gen, KD_TL_BLOCKIO, bkey.op, started,
                                           started + delta);
    if (e) {
        e->nr = bkey.dev;
        e->tid = (__u32)ctx->args[2];
    }
    return 0;
}
#endif

