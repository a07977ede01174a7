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

RAW_TRACEPOINT_PROBE(irq_handler_entry)
{
{{#budget}}
    set_irq_context(KD_WAKER_HARDIRQ, 1);
    irq_time_begin(1);
{{/budget}}
    if (!target_current())
        return 0;
    int zero = 0;
    irq_began(hardirq_slot.lookup(&zero), ctx->args[1]);
    return 0;
}

RAW_TRACEPOINT_PROBE(irq_handler_exit)
{
{{#budget}}
    set_irq_context(KD_WAKER_HARDIRQ, 0);
    irq_time_end(1);
{{/budget}}
    int zero = 0;
    struct kd_irq_slot *slot = hardirq_slot.lookup(&zero);
    __u64 start = irq_ended(slot);
    if (!start)
        return 0;

    __u32 tid = target_current();
    if (!tid || (int)ctx->args[2] == 0 /* IRQ_NONE: not handled */)
        return 0;

    struct kd_hardirq_key key = { .tid = tid };
    char *name = 0;
    bpf_probe_read_kernel(&name, sizeof(name),
                          (char *)slot->what + IRQACTION_NAME_OFF);
    bpf_probe_read_kernel_str(&key.name, sizeof(key.name), name);
    thread_entry(tid, 0);

    struct kd_stat fresh = {};
    struct kd_stat *s = hardirqs.lookup_or_try_init(&key, &fresh);
    if (!s) {
        note_full(KD_MAP_HARDIRQS);
        return 0;
    }
    __u64 delta = bpf_ktime_get_ns() - start;
    stat_add(s, delta);
    hist_add(tid, KD_HIST_HARDIRQ, 0, delta);
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_entry)
{
{{#budget}}
    set_irq_context(KD_WAKER_SOFTIRQ, 1);
    irq_time_begin(0);
{{/budget}}
    if (!target_current())
        return 0;
    int zero = 0;
    irq_began(softirq_slot.lookup(&zero), ctx->args[0]);
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_exit)
{
{{#budget}}
    set_irq_context(KD_WAKER_SOFTIRQ, 0);
    irq_time_end(0);
{{/budget}}
    int zero = 0;
    struct kd_irq_slot *slot = softirq_slot.lookup(&zero);
    __u64 start = irq_ended(slot);
    if (!start)
        return 0;

    __u32 tid = target_current();
    if (!tid)
        return 0;
    struct kd_softirq_key key = { .tid = tid, .vec = (__u32)slot->what };
    thread_entry(tid, 0);

    struct kd_stat fresh = {};
    struct kd_stat *s = softirqs.lookup_or_try_init(&key, &fresh);
    if (!s) {
        note_full(KD_MAP_SOFTIRQS);
        return 0;
    }
    __u64 delta = bpf_ktime_get_ns() - start;
    stat_add(s, delta);
    hist_add(tid, KD_HIST_SOFTIRQ, key.vec, delta);
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

