/* ---- hard and soft interrupts taken while a target thread ran ---- */

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

/* This CPU's slot for a hard (1) or soft (0) interrupt handler. */
static __always_inline struct kd_irq_slot *irq_slot(int hard)
{
    int zero = 0;
    return hard ? hardirq_slot.lookup(&zero) : softirq_slot.lookup(&zero);
}

/* A handler starts: the budget's interrupt context and time, then, when it
 * interrupts a thread of the target, its start in the slot. */
static __always_inline void handler_entered(int hard, __u64 what)
{
{{#budget}}
    set_irq_context(hard ? KD_WAKER_HARDIRQ : KD_WAKER_SOFTIRQ, 1);
    irq_time_begin(hard);
{{/budget}}
    if (target_current())
        irq_began(irq_slot(hard), what);
}

/* A handler ends: its start, 0 when it did not interrupt the target. */
static __always_inline __u64 handler_exited(int hard, struct kd_irq_slot *slot)
{
{{#budget}}
    set_irq_context(hard ? KD_WAKER_HARDIRQ : KD_WAKER_SOFTIRQ, 0);
    irq_time_end(hard);
{{/budget}}
    return irq_ended(slot);
}

/* Adds a handler's time since start to its entry (s, from map) and to the
 * thread's histogram of that kind. */
static __always_inline void handler_timed(struct kd_stat *s, int map, __u32 tid, __u32 kind, __u32 id, __u64 start)
{
    if (!s) {
        note_full(map);
        return;
    }
    __u64 delta = bpf_ktime_get_ns() - start;
    stat_add(s, delta);
    hist_add(tid, kind, id, delta);
}

RAW_TRACEPOINT_PROBE(irq_handler_entry)
{
    handler_entered(1, ctx->args[1]);
    return 0;
}

RAW_TRACEPOINT_PROBE(irq_handler_exit)
{
    struct kd_irq_slot *slot = irq_slot(1);
    __u64 start = handler_exited(1, slot);
    if (!start)
        return 0;
    __u32 tid = target_current();
    if (!tid || (int)ctx->args[2] == 0 /* IRQ_NONE: not handled */)
        return 0;

    struct kd_hardirq_key key = { .tid = tid };
    char *name = 0;
    bpf_probe_read_kernel(&name, sizeof(name), (char *)slot->what + IRQACTION_NAME_OFF);
    bpf_probe_read_kernel_str(&key.name, sizeof(key.name), name);
    thread_entry(tid, 0);
    struct kd_stat fresh = {};
    handler_timed(hardirqs.lookup_or_try_init(&key, &fresh), KD_MAP_HARDIRQS, tid, KD_HIST_HARDIRQ, 0, start);
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_entry)
{
    handler_entered(0, ctx->args[0]);
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_exit)
{
    struct kd_irq_slot *slot = irq_slot(0);
    __u64 start = handler_exited(0, slot);
    if (!start)
        return 0;
    __u32 tid = target_current();
    if (!tid)
        return 0;

    struct kd_softirq_key key = { .tid = tid, .vec = (__u32)slot->what };
    thread_entry(tid, 0);
    struct kd_stat fresh = {};
    handler_timed(softirqs.lookup_or_try_init(&key, &fresh), KD_MAP_SOFTIRQS, tid, KD_HIST_SOFTIRQ, key.vec, start);
    return 0;
}

{{#budget}}
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

/* A waiting thread of the target moves to another CPU's queue: who held
 * the old CPU is not known on the new one. */
RAW_TRACEPOINT_PROBE(sched_migrate_task)
{
    struct kd_capture *cap = capturing();
    if (!cap)
        return 0;
    __u32 tid;
    if (task_ids((void *)ctx->args[0], &tid) != TARGET_TGID)
        return 0;
    struct kd_thread *t = threads.lookup(&tid);
    if (t && t->budget.state == KD_B_READY)
        t->budget.migrated_ns = bpf_ktime_get_ns();
    return 0;
}
{{/budget}}

