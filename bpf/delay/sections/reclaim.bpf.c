/* ---- --reclaim: time a thread spends reclaiming memory itself before an
 * allocation can go on, from the vmscan tracepoints; the row id is the kind
 * of reclaim, KD_RECLAIM_* (src/delay/sections/reclaim.cpp describes this
 * section). ---- */
#include "delay/core.bpf.h"

KD_REQUIRE_CONFIG(KD_RECLAIM_CONFIG)

#if WITH_RECLAIM

/* The reclaim a thread is in. A reclaim inside another (soft limit reclaim
 * runs inside a direct reclaim) is part of it and not counted apart. */
struct kd_reclaim_run {
    __u64 start;
    __u32 kind;
    __u32 pad;
};
BPF_HASH(reclaim_runs, __u32, struct kd_reclaim_run, MAX_RECLAIM_RUNS);
BPF_HASH(reclaim, struct kd_row_key, struct kd_stat, MAX_RECLAIM);

static __always_inline int reclaim_begin(__u32 kind)
{
    __u32 tid;
    struct kd_capture *cap = capturing_current(&tid);
    if (!cap)
        return 0;
    struct kd_reclaim_run *r = reclaim_runs.lookup(&tid);
    if (r && r->start >= cap->start_ns)
        return 0;  /* inside another */
    struct kd_reclaim_run fresh = { .start = bpf_ktime_get_ns(), .kind = kind };
    if (reclaim_runs.update(&tid, &fresh) != 0)
        note_full(KD_MAP_RECLAIM);
    return 0;
}

static __always_inline int reclaim_end(__u32 kind)
{
    __u32 tid;
    struct kd_capture *cap = capturing_current(&tid);
    if (!cap)
        return 0;
    struct kd_reclaim_run *r = reclaim_runs.lookup(&tid);
    if (!r || r->kind != kind)
        return 0;
    __u64 delta = wait_ends(&r->start, cap);
    if (!delta)
        return 0;
    kd_gen_t gen = tid_recording_gen(tid);
    if (!gen)
        return 0;
    struct kd_row_key key = { .tid = interval_tid(tid, gen), .id = kind };
    struct kd_stat zero = {};
    stat_into(reclaim.lookup_or_try_init(&key, &zero), KD_MAP_RECLAIM, tid, KD_HIST_RECLAIM, kind, delta, gen);
    return 0;
}

RAW_TRACEPOINT_PROBE(mm_vmscan_direct_reclaim_begin) { return reclaim_begin(KD_RECLAIM_DIRECT); }
RAW_TRACEPOINT_PROBE(mm_vmscan_direct_reclaim_end) { return reclaim_end(KD_RECLAIM_DIRECT); }
RAW_TRACEPOINT_PROBE(mm_vmscan_memcg_reclaim_begin) { return reclaim_begin(KD_RECLAIM_MEMCG); }
RAW_TRACEPOINT_PROBE(mm_vmscan_memcg_reclaim_end) { return reclaim_end(KD_RECLAIM_MEMCG); }
RAW_TRACEPOINT_PROBE(mm_vmscan_memcg_softlimit_reclaim_begin) { return reclaim_begin(KD_RECLAIM_SOFT); }
RAW_TRACEPOINT_PROBE(mm_vmscan_memcg_softlimit_reclaim_end) { return reclaim_end(KD_RECLAIM_SOFT); }
#endif
