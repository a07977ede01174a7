/* ---- hard and soft interrupts taken while a target thread ran ---- */
#include "delay/core.bpf.h"
#include "delay/irq_slots.bpf.h"
#include "delay/budget.bpf.h"

static __always_inline void irq_began(struct kd_irq_slot *slot, __u64 what)
{
    if (!slot)
        return;
    slot->start = bpf_ktime_get_ns();
    slot->what = what;
}

/* The start time of the handler ending on this CPU, 0 if it was not timed. */
static __always_inline __u64 irq_ended(struct kd_irq_slot *slot)
{
    if (!slot || !slot->start)
        return 0;
    __u64 start = slot->start;
    slot->start = 0;
    return start;
}

/* A handler starts: the budget's interrupt context and time, then, when it
 * interrupts a thread of the target, its start in the slot. */
static __always_inline void handler_entered(int hard, __u64 what)
{
#if WITH_BUDGET
    set_irq_context(hard ? KD_WAKER_HARDIRQ : KD_WAKER_SOFTIRQ, 1);
    irq_time_begin(hard);
#endif
    if (target_current())
        irq_began(irq_slot(hard), what);
}

/* A handler ends: the thread of the target it interrupted, with the
 * handler's slot and start; 0 when it interrupted none, or did nothing
 * (!handled). */
static __always_inline __u32 handler_exited(int hard, int handled, struct kd_irq_slot **slot, __u64 *start)
{
#if WITH_BUDGET
    set_irq_context(hard ? KD_WAKER_HARDIRQ : KD_WAKER_SOFTIRQ, 0);
    irq_time_end(hard);
#endif
    *slot = irq_slot(hard);
    *start = irq_ended(*slot);
    if (!*start || !handled)
        return 0;
    __u32 tid = target_current();
    if (tid)
        thread_entry(tid, 0);
    return tid;
}

RAW_TRACEPOINT_PROBE(irq_handler_entry)
{
    handler_entered(1, ctx->args[1]);
    return 0;
}

RAW_TRACEPOINT_PROBE(irq_handler_exit)
{
    struct kd_irq_slot *slot;
    __u64 start;
    __u32 tid = handler_exited(1, (int)ctx->args[2] != 0 /* else IRQ_NONE */, &slot, &start);
    kd_gen_t gen = tid ? tid_recording_gen(tid) : 0;
    if (!gen)
        return 0;

    struct kd_hardirq_key key = { .tid = interval_tid(tid, gen) };
    char *name = 0;
    bpf_probe_read_kernel(&name, sizeof(name), (char *)slot->what + IRQACTION_NAME_OFF);
    bpf_probe_read_kernel_str(&key.name, sizeof(key.name), name);
    struct kd_stat fresh = {};
    __u64 now = bpf_ktime_get_ns();
    stat_into(hardirqs.lookup_or_try_init(&key, &fresh), KD_MAP_HARDIRQS, tid, KD_HIST_HARDIRQ, 0, now - start, gen);
    struct kd_tl_event *e = timeline_slice(tid, gen, KD_TL_HARDIRQ, 0, start, now);
    if (e)
        __builtin_memcpy(e->comm, key.name, KD_COMM_LEN);
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_entry)
{
    handler_entered(0, ctx->args[0]);
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_exit)
{
    struct kd_irq_slot *slot;
    __u64 start;
    __u32 tid = handler_exited(0, 1, &slot, &start);
    kd_gen_t gen = tid ? tid_recording_gen(tid) : 0;
    if (!gen)
        return 0;

    struct kd_softirq_key key = { .tid = interval_tid(tid, gen), .vec = (__u32)slot->what };
    struct kd_stat fresh = {};
    __u64 now = bpf_ktime_get_ns();
    stat_into(softirqs.lookup_or_try_init(&key, &fresh), KD_MAP_SOFTIRQS, tid, KD_HIST_SOFTIRQ, key.vec, now - start,
              gen);
    timeline_slice(tid, gen, KD_TL_SOFTIRQ, key.vec, start, now);
    return 0;
}

#if WITH_BUDGET
/* hrtimers (a sleep's end, for one) expire in hard IRQ context without an
 * irq_handler_entry: their wakeups are the timer's. */
RAW_TRACEPOINT_PROBE(hrtimer_expire_entry)
{
    set_irq_context(KD_WAKER_TIMER, 1);
    return 0;
}

RAW_TRACEPOINT_PROBE(hrtimer_expire_exit)
{
    set_irq_context(KD_WAKER_TIMER, 0);
    return 0;
}
#endif

