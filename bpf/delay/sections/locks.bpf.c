/* ---- --locks: kernel lock contention, from lock:contention_begin/end
 * (Linux 5.19+); src/delay/sections/locks.cpp describes this section. The
 * row id is the lock's flags, which say its kind. ---- */
#include "delay/core.bpf.h"
#include "delay/irq_slots.bpf.h"

KD_REQUIRE_CONFIG(KD_LOCKS_CONFIG)

#if WITH_LOCKS

/* The wait a thread is in: the lock and when the wait began. A thread
 * waits for one lock at a time; a contention inside that wait (the
 * wait_lock of a mutex's slow path) is part of it and not counted apart. */
struct kd_lock_wait {
    __u64 lock;
    __u64 start;
    __u32 flags;
    __u32 pad;
};
BPF_HASH(lock_waits, __u32, struct kd_lock_wait, MAX_LOCK_WAITS);
BPF_HASH(locks, struct kd_row_key, struct kd_stat, MAX_LOCKS);

/* Whether a hard or soft interrupt handler runs on this CPU on behalf of
 * the thread it interrupted: its lock waits are the handler's time, which
 * the IRQ sections already count. */
static __always_inline int in_handler(void)
{
    struct kd_irq_slot *hard = irq_slot(1), *soft = irq_slot(0);
    return (hard && hard->start) || (soft && soft->start);
}

RAW_TRACEPOINT_PROBE(contention_begin)
{
    __u32 tid;
    struct kd_capture *cap = capturing_current(&tid);
    if (!cap || in_handler())
        return 0;
    __u64 lock = ctx->args[0];
    struct kd_lock_wait *w = lock_waits.lookup(&tid);
    if (w && w->start >= cap->start_ns) {
        /* The same lock again: a mutex that stops spinning and sleeps. */
        if (w->lock == lock)
            w->flags = (__u32)ctx->args[1];
        return 0;
    }
    struct kd_lock_wait fresh = { .lock = lock, .start = bpf_ktime_get_ns(), .flags = (__u32)ctx->args[1] };
    if (lock_waits.update(&tid, &fresh) != 0)
        note_full(KD_MAP_LOCKS);
    return 0;
}

RAW_TRACEPOINT_PROBE(contention_end)
{
    __u32 tid;
    struct kd_capture *cap = capturing_current(&tid);
    if (!cap)
        return 0;
    struct kd_lock_wait *w = lock_waits.lookup(&tid);
    if (!w || w->lock != ctx->args[0])
        return 0;
    __u64 delta = wait_ends(&w->start, cap);
    if (!delta)
        return 0;
    kd_gen_t gen = tid_recording_gen(tid);
    if (!gen)
        return 0;
    struct kd_row_key key = { .tid = interval_tid(tid, gen), .id = w->flags };
    struct kd_stat zero = {};
    stat_into(locks.lookup_or_try_init(&key, &zero), KD_MAP_LOCKS, tid, KD_HIST_LOCK, key.id, delta, gen);
    return 0;
}
#endif
