/* kdelay: per-thread kernel delay accounting for one process.
 *
 * Rendered by src/delay/program.cpp. No kernel headers are included:
 * every struct offset below comes from the running kernel's BTF.
 */
{{> delay_abi}}

#define TARGET_TGID {{target_tgid}}
#define POLL_NR {{poll_nr}}

#define TASK_PID_OFF {{task_pid_off}}
#define TASK_TGID_OFF {{task_tgid_off}}
#define TASK_IDS_ADJACENT {{task_ids_adjacent}}
#define TASK_STATE_OFF {{task_state_off}}
#define TASK_COMM_OFF {{task_comm_off}}
#define TASK_RUNTIME_OFF {{task_runtime_off}}
#define IRQACTION_NAME_OFF {{irqaction_name_off}}
#define PT_REGS_NR_OFF {{pt_regs_nr_off}}
typedef {{task_state_type}} kd_task_state_t;
typedef {{pt_regs_nr_type}} kd_regs_nr_t;

/* Task state bits, stable across kernel versions. */
#define KD_TASK_RUNNING 0x0
#define KD_TASK_STOPPED 0x4
#define KD_TASK_TRACED 0x8

BPF_ARRAY(capture, struct kd_capture, 1);
BPF_PERCPU_ARRAY(map_full, __u64, KD_MAP_COUNT);
BPF_PERCPU_ARRAY(counters, __u64, KD_STAT_COUNT);
{{#syscall_events}}
BPF_RINGBUF_OUTPUT(events, {{ringbuf_pages}});
#define SYSCALL_EVENT_MIN_NS {{syscall_event_min_ns}}
{{/syscall_events}}
{{#stack_traces}}
BPF_STACK_TRACE(stack_traces, {{stack_trace_size}});
{{/stack_traces}}
BPF_HASH(threads, __u32, struct kd_thread, {{max_threads}});
BPF_HASH(syscalls, struct kd_syscall_key, struct kd_syscall, {{max_syscalls}});
BPF_HASH(hardirqs, struct kd_hardirq_key, struct kd_stat, {{max_hardirqs}});
BPF_HASH(softirqs, struct kd_softirq_key, struct kd_stat, {{max_softirqs}});
BPF_PERCPU_ARRAY(hardirq_slot, struct kd_irq_slot, 1);
BPF_PERCPU_ARRAY(softirq_slot, struct kd_irq_slot, 1);

/* The capture state while capturing, else NULL. */
static __always_inline struct kd_capture *capturing(void)
{
    int zero = 0;
    struct kd_capture *cap = capture.lookup(&zero);
    return cap && cap->state == KD_CAPTURING ? cap : 0;
}

static __always_inline void note_full(int map)
{
    __u64 *n = map_full.lookup(&map);
    if (n)
        *n += 1;
}

static __always_inline void count(int counter)
{
    __u64 *n = counters.lookup(&counter);
    if (n)
        *n += 1;
}

static __always_inline void stat_add(struct kd_stat *s, __u64 delta)
{
    s->count++;
    s->total_ns += delta;
    if (s->count == 1 || delta < s->min_ns)
        s->min_ns = delta;
    if (delta > s->max_ns)
        s->max_ns = delta;
}

{{#histograms}}
BPF_HASH(hist, struct kd_hist_key, __u64, {{max_hist}});
{{/histograms}}

/* One more value in a log2 histogram; with the stats it mirrors, so the
 * histogram's total always equals the COUNT column. */
static __always_inline void hist_add(__u32 tid, __u32 kind, __u32 id, __u64 delta)
{
{{#histograms}}
    struct kd_hist_key key = { .tid = tid, .kind = kind, .id = id, .slot = bpf_log2l(delta) };
    __u64 zero = 0;
    __u64 *n = hist.lookup_or_try_init(&key, &zero);
    if (n)
        __sync_fetch_and_add(n, 1);
    else
        note_full(KD_MAP_HIST);
{{/histograms}}
}

static __always_inline __u32 task_u32(void *task, __u64 off)
{
    __u32 v = 0;
    bpf_probe_read_kernel(&v, sizeof(v), (char *)task + off);
    return v;
}

/* A task's tgid (returned) and tid. task_struct has pid and tgid side by
 * side, so one read takes both: a helper call saved on every wakeup and
 * switch. The renderer checks the layout from BTF. */
static __always_inline __u32 task_ids(void *task, __u32 *tid)
{
#if TASK_IDS_ADJACENT
    __u32 ids[2] = {};
    bpf_probe_read_kernel(ids, sizeof(ids), (char *)task + TASK_PID_OFF);
    *tid = ids[0];
    return ids[1];
#else
    *tid = task_u32(task, TASK_PID_OFF);
    return task_u32(task, TASK_TGID_OFF);
#endif
}

/* The thread's entry, created on first sight. The name is taken now, in the
 * kernel, so a thread that exits before the report keeps it. */
static __always_inline struct kd_thread *thread_entry(__u32 tid, void *task)
{
    struct kd_thread *t = threads.lookup(&tid);
    if (t)
        return t;

    struct kd_thread fresh = {};
    if (task)
        bpf_probe_read_kernel(&fresh.comm, sizeof(fresh.comm),
                              (char *)task + TASK_COMM_OFF);
    else
        bpf_get_current_comm(&fresh.comm, sizeof(fresh.comm));
    if (threads.insert(&tid, &fresh) != 0) {
        t = threads.lookup(&tid);
        if (!t)
            note_full(KD_MAP_THREADS);
        return t;
    }
    return threads.lookup(&tid);
}

/* The capture state when the task of id (pid_tgid) belongs to the target and
 * we capture, else 0. The tgid is checked first: most events are not the
 * target's, and that check needs no map lookup. */
static __always_inline struct kd_capture *target_capturing(__u64 id)
{
    if ((id >> 32) != TARGET_TGID)
        return 0;
    return capturing();
}

/* The current task's tid when it belongs to the target and we capture. */
static __always_inline __u32 target_current(void)
{
    __u64 id = bpf_get_current_pid_tgid();
    return target_capturing(id) ? (__u32)id : 0;
}

/* ---- syscalls and long poll intervals ---- */

static __always_inline struct kd_syscall *syscall_entry(struct kd_syscall_key *key)
{
    struct kd_syscall zero = {};
    struct kd_syscall *s = syscalls.lookup_or_try_init(key, &zero);
    if (!s)
        note_full(KD_MAP_SYSCALLS);
    return s;
}

/* For the current thread's syscall, the first time in this sample: also
 * record the thread's name, in case it never gets switched out. */
static __always_inline struct kd_syscall *new_syscall(struct kd_syscall_key *key)
{
    thread_entry(key->tid, 0);
    return syscall_entry(key);
}

static __always_inline void stat_merge(struct kd_stat *to, struct kd_stat *from)
{
    if (!to->count || from->min_ns < to->min_ns)
        to->min_ns = from->min_ns;
    if (from->max_ns > to->max_ns)
        to->max_ns = from->max_ns;
    to->count += from->count;
    to->total_ns += from->total_ns;
}

/* A run of one syscall on one CPU (a getppid storm, a busy read loop) is
 * summed in a per-CPU slot and costs no hash lookup per call; the next
 * different syscall on that CPU moves the run into the syscalls hash, and
 * the collector adds what the slots hold at the end of the sample (the
 * collector also zeroes them between samples). */
BPF_PERCPU_ARRAY(recent, struct kd_recent, 1);

static __always_inline void recent_add(struct kd_syscall_key *key, __u64 delta)
{
    int zero = 0;
    struct kd_recent *r = recent.lookup(&zero);
    if (!r)
        return;
    if (r->tid == key->tid && r->nr == key->nr) {
        stat_add(&r->stat, delta);
        return;
    }
    if (r->stat.count) {
        /* Runs on another thread's behalf: no thread_entry() here, it would
         * take the current thread's name. */
        struct kd_syscall_key done = { .tid = r->tid, .nr = r->nr };
        struct kd_syscall *s = syscall_entry(&done);
        if (s)
            stat_merge(&s->stat, &r->stat);
    }
    if (r->tid != key->tid)
        thread_entry(key->tid, 0);
    r->tid = key->tid;
    r->nr = key->nr;
    r->stat.count = 1;
    r->stat.total_ns = delta;
    r->stat.min_ns = delta;
    r->stat.max_ns = delta;
}

/* The target's syscall in flight on this CPU. A thread leaves the CPU only
 * through sched_switch, which moves its in-flight syscall into the syscalls
 * hash (spill_inflight); so a syscall that does not block costs no hash
 * lookup on entry, and its exit needs no pt_regs read. A stale slot (from
 * before this sample) is older than capture.start_ns and ignored. */
struct kd_inflight {
    __u32 tid;
    __u32 nr;
    __u64 start;
};
BPF_PERCPU_ARRAY(inflight, struct kd_inflight, 1);

/* Whether the slot holds tid's syscall entered in this sample. A slot left
 * by a syscall whose exit fell after the end of an earlier sample (the
 * uretprobe syscall of a ur: stop trigger, always) still names the thread,
 * and must not shadow its real syscall, spilled on another CPU. */
static __always_inline int inflight_is(struct kd_inflight *f, __u32 tid, struct kd_capture *cap)
{
    return f && f->start && f->tid == tid && f->start >= cap->start_ns;
}

static __always_inline void spill_inflight(__u32 tid, struct kd_capture *cap)
{
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (!inflight_is(f, tid, cap))
        return;
    struct kd_syscall_key key = { .tid = tid, .nr = f->nr };
    struct kd_syscall *s = syscalls.lookup(&key);
    if (!s)
        s = new_syscall(&key);
    if (s)
        s->start = f->start;
    f->start = 0;
}

/* ---- the time budget (--budget, JSON): each thread's state, clipped to
 * the window; see struct kd_budget ---- */

static __always_inline __u64 window_start(struct kd_capture *cap)
{
    return cap->start_trigger_ns ? cap->start_trigger_ns : cap->start_ns;
}

{{#budget}}
BPF_HASH(wakers, struct kd_waker_key, struct kd_waker, {{max_wakers}});
BPF_PERCPU_ARRAY(irq_context, struct kd_irq_context, 1);

/* Who ends blocked time now: the current task, or the interrupt it is in. */
static __always_inline void note_waker(struct kd_thread *t, __u32 tid, __u64 blocked_ns, __u64 now)
{
    struct kd_waker_key key = { .tid = tid, .kind = KD_WAKER_TASK };
    int zero = 0;
    struct kd_irq_context *c = irq_context.lookup(&zero);
    __u64 id = bpf_get_current_pid_tgid();
    if (c && c->timer)
        key.kind = KD_WAKER_TIMER;
    else if (c && c->hard)
        key.kind = KD_WAKER_HARDIRQ;
    else if (c && c->soft)
        key.kind = KD_WAKER_SOFTIRQ;
    else
        key.pid = (__u32)id;
    struct kd_waker fresh = {};
    struct kd_waker *w = wakers.lookup_or_try_init(&key, &fresh);
    if (!w) {
        note_full(KD_MAP_WAKERS);
        return;
    }
    if (!w->count && key.kind == KD_WAKER_TASK) {
        w->tgid = id >> 32;
        bpf_get_current_comm(&w->comm, sizeof(w->comm));
    }
    w->count++;
    w->blocked_ns += blocked_ns;
    /* For the syscall event of the syscall this wakeup ends, if any. */
    t->budget.woken_ns = now;
    t->budget.waker_kind = key.kind;
    t->budget.waker_tid = key.pid;
    t->budget.waker_pid = key.kind == KD_WAKER_TASK ? w->tgid : 0;
    __builtin_memcpy(t->budget.waker_comm, w->comm, sizeof(w->comm));
}

BPF_HASH(blame, struct kd_blame_key, struct kd_blame, {{max_blame}});
BPF_PERCPU_ARRAY(holders, struct kd_cpu_holders, 1);
BPF_ARRAY(waiting, __s64, 1);  /* threads of the target waiting for a CPU */

static __always_inline int someone_waits(void)
{
    int zero = 0;
    __s64 *n = waiting.lookup(&zero);
    return n && *n > 0;
}

static __always_inline void waiting_add(__s64 d)
{
    int zero = 0;
    __s64 *n = waiting.lookup(&zero);
    if (n)
        __sync_fetch_and_add(n, d);
}

/* The current task leaves this CPU at now: one more holder in the ring. */
static __always_inline void holder_leaves(__u64 now)
{
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (!h)
        return;
    struct kd_holder *e = &h->ring[h->head & (KD_HOLDERS - 1)];
    __u64 id = bpf_get_current_pid_tgid();
    e->start = h->since;
    e->end = now;
    e->irq_ns = h->irq_ns;
    e->tid = (__u32)id;
    e->tgid = id >> 32;
    bpf_get_current_comm(&e->comm, sizeof(e->comm));
    h->head++;
    h->since = now;
    h->irq_ns = 0;
}

/* No thread of the target waits: what the holder did is of no interest. */
static __always_inline void holder_forget(void)
{
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (h && (h->since || h->irq_ns)) {
        h->since = 0;
        h->irq_ns = 0;
    }
}

static __always_inline void blame_add(__u32 tid, __u32 kind, struct kd_holder *e, __u64 ns)
{
    if (!ns)
        return;
    struct kd_blame_key key = { .tid = tid, .kind = kind, .holder = e ? e->tid : 0 };
    struct kd_blame fresh = {};
    struct kd_blame *b = blame.lookup_or_try_init(&key, &fresh);
    if (!b) {
        note_full(KD_MAP_BLAME);
        return;
    }
    if (!b->ns && e) {
        b->tgid = e->tgid;
        __builtin_memcpy(b->comm, e->comm, sizeof(b->comm));
    }
    b->ns += ns;
}

/* tid gets this CPU at now after waiting since w0 (since lo on this CPU):
 * split the wait over the holders of this CPU it overlaps. */
static __always_inline void blame_wait(__u32 tid, __u64 w0, __u64 lo, __u64 now)
{
    __u64 covered = 0, irq = 0;
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (h) {
        for (int i = 1; i <= KD_HOLDERS; i++) {
            struct kd_holder *e = &h->ring[(h->head - i) & (KD_HOLDERS - 1)];
            if (e->end <= lo)
                break;
            __u64 from = e->start > lo ? e->start : lo;
            __u64 to = e->end < now ? e->end : now;
            if (to <= from)
                continue;
            __u64 d = to - from;
            __u64 e_irq = e->irq_ns;
            /* Only part of the holder's turn overlapped: its share of the IRQs. */
            if (e->start && e->end - e->start > d && e_irq)
                e_irq = e_irq * d / (e->end - e->start);
            if (e_irq > d)
                e_irq = d;
            blame_add(tid, KD_BLAME_TASK, e, d - e_irq);
            irq += e_irq;
            covered += d;
        }
    }
    blame_add(tid, KD_BLAME_IRQ, 0, irq);
    __u64 total = now > w0 ? now - w0 : 0;
    if (total > covered)
        blame_add(tid, KD_BLAME_OTHERS, 0, total - covered);
}

/* Interrupt time on this CPU while some thread of the target waits. */
static __always_inline void irq_time_begin(int hard)
{
    if (!someone_waits())
        return;
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (!h)
        return;
    if (hard)
        h->hard_start = bpf_ktime_get_ns();
    else
        h->soft_start = bpf_ktime_get_ns();
}

static __always_inline void irq_time_end(int hard)
{
    int zero = 0;
    struct kd_cpu_holders *h = holders.lookup(&zero);
    if (!h)
        return;
    __u64 start = hard ? h->hard_start : h->soft_start;
    if (!start)
        return;
    h->irq_ns += bpf_ktime_get_ns() - start;
    if (hard)
        h->hard_start = 0;
    else
        h->soft_start = 0;
}

/* Interrupt context, per CPU, for note_waker(). */
static __always_inline void set_irq_context(int which, __u32 on)
{
    int zero = 0;
    struct kd_irq_context *c = irq_context.lookup(&zero);
    if (!c)
        return;
    if (which == KD_WAKER_HARDIRQ)
        c->hard = on;
    else if (which == KD_WAKER_SOFTIRQ)
        c->soft = on;
    else
        c->timer = on;
}

/* Ends the thread's current state at now and adds the time to it. A thread
 * first seen now has been in `assumed` since the window began. */
static __always_inline __u64 budget_leave(struct kd_thread *t, __u32 tid, struct kd_capture *cap,
                                          __u64 now, __u32 assumed)
{
    struct kd_budget *b = &t->budget;
    __u64 since = b->since ? b->since : window_start(cap);
    __u64 d = now > since ? now - since : 0;
    __u32 state = b->state ? b->state : assumed;
    __u32 nr = b->state ? b->blocked_nr : KD_B_SYSCALL_UNKNOWN;
    if (b->state == KD_B_READY)
        waiting_add(-1);

    if (state == KD_B_RUNNING) {
        b->running_ns += d;
    } else if (state == KD_B_READY) {
        b->ready_ns += d;
    } else if (state == KD_B_STOPPED) {
        b->stopped_ns += d;
    } else if (state == KD_B_BLOCKED) {
        if (nr == KD_B_NO_SYSCALL) {
            b->blocked_nosys_ns += d;
        } else if (nr == KD_B_SYSCALL_UNKNOWN) {
            b->pending_ns += d;
        } else {
            struct kd_syscall_key key = { .tid = tid, .nr = nr };
            struct kd_syscall *s = syscall_entry(&key);
            if (s)
                s->blocked_ns += d;
            hist_add(tid, KD_HIST_BLOCKED, nr, d);
        }
        return d;
    }
    return 0;
}

static __always_inline void budget_enter(struct kd_thread *t, __u32 state, __u32 nr, __u64 now)
{
    if (state == KD_B_READY) {
        waiting_add(1);
        t->budget.migrated_ns = 0;
    }
    t->budget.state = state;
    t->budget.blocked_nr = nr;
    t->budget.since = now;
}

/* The syscall a thread that leaves its CPU is blocked in: the one in this
 * CPU's in-flight slot (entered in the window or before), one that blocked
 * before and has not returned, or none; unknown when the thread was first
 * seen now, as it may be in a syscall entered before the window. */
static __always_inline __u32 budget_blocked_nr(struct kd_thread *t, __u32 tid)
{
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (f && f->start && f->tid == tid)
        return f->nr;
    if (t->budget.in_syscall)
        return t->budget.in_syscall - 1;
    return t->budget.state ? KD_B_NO_SYSCALL : KD_B_SYSCALL_UNKNOWN;
}

/* A syscall that blocked returns. Blocked time still pending belongs to it
 * when it was entered before the window; otherwise its number was known
 * whenever it blocked, so the pending time was spent outside syscalls. */
static __always_inline void budget_syscall_returned(__u32 tid, __u32 nr, int entered_in_window)
{
    struct kd_thread *t = threads.lookup(&tid);
    if (!t)
        return;
    t->budget.in_syscall = 0;
    if (!t->budget.pending_ns)
        return;
    if (entered_in_window) {
        t->budget.blocked_nosys_ns += t->budget.pending_ns;
    } else {
        struct kd_syscall_key key = { .tid = tid, .nr = nr };
        struct kd_syscall *s = syscall_entry(&key);
        if (s)
            s->blocked_ns += t->budget.pending_ns;
    }
    t->budget.pending_ns = 0;
}
{{/budget}}

RAW_TRACEPOINT_PROBE(sys_enter)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct kd_capture *cap = target_capturing(id);
    if (!cap)
        return 0;

    __u64 now = bpf_ktime_get_ns();
    struct kd_syscall_key key = { .tid = (__u32)id, .nr = (__u32)ctx->args[1] };
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (f) {
        f->tid = key.tid;
        f->nr = key.nr;
        f->start = now;
    }

    if (key.nr == POLL_NR) {
        struct kd_thread *t = threads.lookup(&key.tid);
        if (t && t->poll_exit >= cap->start_ns && t->poll_exit) {
            stat_add(&t->long_poll, now - t->poll_exit);
            t->poll_exit = 0;
        }
    }
    return 0;
}

RAW_TRACEPOINT_PROBE(sys_exit)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct kd_capture *cap = target_capturing(id);
    if (!cap)
        return 0;

    struct kd_syscall_key key = { .tid = (__u32)id };
    struct kd_syscall *s = 0;  /* 0: the syscall never left the CPU */
    __u64 entry;
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (inflight_is(f, key.tid, cap)) {
        /* Never left the CPU: the entry is still in the per-CPU slot. */
        key.nr = f->nr;
        entry = f->start;
        f->start = 0;
    } else {
        /* The raw tracepoint has no syscall number; read it from pt_regs as
         * the classic tracepoint does. */
        kd_regs_nr_t nr = 0;
        bpf_probe_read_kernel(&nr, sizeof(nr), (char *)ctx->args[0] + PT_REGS_NR_OFF);
        key.nr = (__u32)nr;
        s = syscalls.lookup(&key);
{{#budget}}
        budget_syscall_returned(key.tid, key.nr, s && s->start && s->start >= cap->start_ns);
{{/budget}}
        if (!s)
            return 0;
        entry = s->start;
        s->start = 0;
    }
    if (!entry || entry < cap->start_ns)
        return 0;

    __u64 now = bpf_ktime_get_ns();
    if (s)
        stat_add(&s->stat, now - entry);
    else
        recent_add(&key, now - entry);
    hist_add(key.tid, KD_HIST_SYSCALL, key.nr, now - entry);
{{#syscall_events}}
    if ((SYSCALL_EVENT_MIN_NS == 0 || now - entry > SYSCALL_EVENT_MIN_NS){{#skip_poll}} && key.nr != POLL_NR{{/skip_poll}}) {
        struct kd_event *e = events.ringbuf_reserve(sizeof(struct kd_event));
        if (!e) {
            count(KD_STAT_EVENTS_DROPPED);
        } else {
            e->entry_ns = entry;
            e->exit_ns = now;
            e->tid = key.tid;
            e->nr = key.nr;
{{#stack_traces}}
            e->user_stack = stack_traces.get_stackid(ctx, BPF_F_USER_STACK);
            e->kernel_stack = stack_traces.get_stackid(ctx, 0);
{{/stack_traces}}
{{^stack_traces}}
            e->user_stack = -1;
            e->kernel_stack = -1;
{{/stack_traces}}
            bpf_get_current_comm(&e->comm, sizeof(e->comm));
            e->waker_kind = KD_WAKER_NONE;
{{#budget}}
            /* A syscall that slept: who woke it, last, inside it. */
            struct kd_thread *t = s ? threads.lookup(&key.tid) : 0;
            if (t && t->budget.woken_ns >= entry) {
                e->waker_kind = t->budget.waker_kind;
                e->waker_tid = t->budget.waker_tid;
                e->waker_pid = t->budget.waker_pid;
                __builtin_memcpy(e->waker_comm, t->budget.waker_comm, sizeof(e->waker_comm));
            }
{{/budget}}
            events.ringbuf_submit(e, 0);
        }
    }
{{/syscall_events}}

    if (key.nr == POLL_NR) {
        struct kd_thread *t = threads.lookup(&key.tid);
        if (t)
            t->poll_exit = now;
    }
    return 0;
}

/* ---- scheduling: run, ready (runnable, waiting for a CPU) and stopped ---- */

static __always_inline void woken(void *task, struct kd_capture *cap, int is_new)
{
    __u32 tid;
    if (task_ids(task, &tid) != TARGET_TGID)
        return;
    struct kd_thread *t = thread_entry(tid, task);
    if (!t)
        return;

    __u64 now = bpf_ktime_get_ns();
    if (!t->runtime)
        bpf_probe_read_kernel(&t->runtime, sizeof(t->runtime), (char *)task + TASK_RUNTIME_OFF);
    if (t->stop_start) {
        stat_add(&t->stopped, now - t->stop_start);
        t->stop_start = 0;
    }
    t->ready_start = now;
{{#budget}}
    if (is_new) {
        t->budget.born_ns = now;
        budget_enter(t, KD_B_READY, 0, now);
        return;
    }
    /* A wakeup of a thread that is running or queued changes nothing. */
    __u32 state = t->budget.state;
    if (state == KD_B_RUNNING || state == KD_B_READY || state == KD_B_DEAD)
        return;
    __u32 was = state;
    __u64 blocked = budget_leave(t, tid, cap, now, KD_B_BLOCKED);
    budget_enter(t, KD_B_READY, 0, now);
    if (was != KD_B_STOPPED)
        note_waker(t, tid, blocked, now);
{{/budget}}
}

RAW_TRACEPOINT_PROBE(sched_wakeup)
{
    struct kd_capture *cap = capturing();
    if (cap)
        woken((void *)ctx->args[0], cap, 0);
    return 0;
}

RAW_TRACEPOINT_PROBE(sched_wakeup_new)
{
    struct kd_capture *cap = capturing();
    if (cap)
        woken((void *)ctx->args[0], cap, 1);
    return 0;
}

{{#budget}}
/* A thread of the target exits: it ran until now, and is gone after. */
RAW_TRACEPOINT_PROBE(sched_process_exit)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct kd_capture *cap = target_capturing(id);
    if (!cap)
        return 0;
    __u32 tid = (__u32)id;
    struct kd_thread *t = thread_entry(tid, 0);
    if (!t)
        return 0;
    __u64 now = bpf_ktime_get_ns();
    budget_leave(t, tid, cap, now, KD_B_RUNNING);
    budget_enter(t, KD_B_DEAD, 0, now);
    t->budget.died_ns = now;
    return 0;
}
{{/budget}}

{{#budget}}
/* A thread of the target gets a CPU at `at`: the wait it ends is blamed on
 * who held this CPU meanwhile. */
static __always_inline void budget_switched_in(struct kd_thread *t, __u32 tid, struct kd_capture *cap, __u64 at)
{
    __u32 was = t->budget.state;
    if (was == KD_B_READY || was == KD_B_UNKNOWN) {
        __u64 w0 = was == KD_B_READY && t->budget.since ? t->budget.since : window_start(cap);
        __u64 lo = was == KD_B_READY && t->budget.migrated_ns > w0 ? t->budget.migrated_ns : w0;
        blame_wait(tid, w0, lo, at);
    }
    budget_leave(t, tid, cap, at, KD_B_READY);
    budget_enter(t, KD_B_RUNNING, 0, at);
}
{{/budget}}

/* prev leaves its CPU, so it had been switched in, but that switch was not
 * seen: a tracepoint can be skipped (BPF's recursion guard; some kernels
 * hide a task from tracing, and its own switches never fire). Its CPU time
 * since it last left a CPU says when it got this one, at the latest. */
static __always_inline __u64 missed_switch_in(struct kd_thread *t, __u64 runtime, __u64 waiting_since, __u64 now)
{
    __u64 ran = runtime > t->runtime ? runtime - t->runtime : 0;
    __u64 waited = now > waiting_since ? now - waiting_since : 0;
    return ran < waited ? now - ran : waiting_since;
}

RAW_TRACEPOINT_PROBE(sched_switch)
{
    struct kd_capture *cap = capturing();
    if (!cap)
        return 0;

    int preempt = (int)ctx->args[0];
    void *prev = (void *)ctx->args[1];
    void *next = (void *)ctx->args[2];
    __u64 now = 0;
{{#budget}}
    /* Who had this CPU, for the threads of the target waiting for it. */
    if (someone_waits()) {
        now = bpf_ktime_get_ns();
        holder_leaves(now);
    } else {
        holder_forget();
    }
{{/budget}}

    /* prev is the current task: its ids come without a memory read. */
    __u64 prev_id = bpf_get_current_pid_tgid();
    if ((prev_id >> 32) == TARGET_TGID) {
        __u32 prev_tid = (__u32)prev_id;
        if (!now)
            now = bpf_ktime_get_ns();
        struct kd_thread *t = thread_entry(prev_tid, 0);
        kd_task_state_t state = 0;
        bpf_probe_read_kernel(&state, sizeof(state), (char *)prev + TASK_STATE_OFF);
        __u64 runtime = 0;
        bpf_probe_read_kernel(&runtime, sizeof(runtime), (char *)prev + TASK_RUNTIME_OFF);
        if (t && t->ready_start && !t->run_start) {
            __u64 in = missed_switch_in(t, runtime, t->ready_start, now);
            stat_add(&t->ready, in - t->ready_start);
            hist_add(prev_tid, KD_HIST_READY, 0, in - t->ready_start);
            t->ready_start = 0;
            t->run_start = in;
        }
{{#budget}}
        if (t && t->budget.state == KD_B_READY)
            budget_switched_in(t, prev_tid, cap, missed_switch_in(t, runtime, t->budget.since, now));
        /* Before the in-flight slot is spilled, which forgets the syscall. */
        if (t && t->budget.state != KD_B_DEAD) {
            __u32 nr = budget_blocked_nr(t, prev_tid);
            budget_leave(t, prev_tid, cap, now, KD_B_RUNNING);
            if (nr < KD_B_SYSCALL_UNKNOWN)
                t->budget.in_syscall = nr + 1;
            if (preempt || state == KD_TASK_RUNNING)
                budget_enter(t, KD_B_READY, 0, now);
            else if (state & (KD_TASK_STOPPED | KD_TASK_TRACED))
                budget_enter(t, KD_B_STOPPED, 0, now);
            else
                budget_enter(t, KD_B_BLOCKED, nr, now);
        }
{{/budget}}
        spill_inflight(prev_tid, cap);
        if (t) {
            /* prev is current here: refresh the name it may have changed. */
            bpf_get_current_comm(&t->comm, sizeof(t->comm));
            t->runtime = runtime;
            if (t->run_start) {
                stat_add(&t->run, now - t->run_start);
                hist_add(prev_tid, KD_HIST_RUN, 0, now - t->run_start);
                t->run_start = 0;
            }
            /* Preempted, or still runnable: it waits for a CPU from now. */
            if (preempt || state == KD_TASK_RUNNING)
                t->ready_start = now;
            else if (state & (KD_TASK_STOPPED | KD_TASK_TRACED))
                t->stop_start = now;
        }
    }

    __u32 next_tid;
    if (task_ids(next, &next_tid) != TARGET_TGID)
        return 0;
    if (!now)
        now = bpf_ktime_get_ns();
    struct kd_thread *t = thread_entry(next_tid, next);
    if (!t)
        return 0;
    if (t->ready_start) {
        stat_add(&t->ready, now - t->ready_start);
        hist_add(next_tid, KD_HIST_READY, 0, now - t->ready_start);
        t->ready_start = 0;
    }
    if (t->stop_start) {
        stat_add(&t->stopped, now - t->stop_start);
        t->stop_start = 0;
    }
    t->run_start = now;
{{#budget}}
    budget_switched_in(t, next_tid, cap, now);
{{/budget}}
    return 0;
}

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

/* ---- triggers: attached to a USDT probe, uprobe, tracepoint or kprobe ---- */
{{#start_trigger}}

int kd_start_trigger(void *ctx)
{
    int zero = 0;
    struct kd_capture *cap = capture.lookup(&zero);
    if (!cap)
        return 0;
    if (cap->state != KD_ARMED) {
        /* Userspace is still dumping or pausing between samples. */
        if (cap->state != KD_CAPTURING)
            count(KD_STAT_TRIGGER_MISS);
        return 0;
    }
    /* No compare-and-swap here: BCC 0.26 targets a BPF ISA without it.
     * Two CPUs starting at once both write nearly the same time. */
    __u64 now = bpf_ktime_get_ns();
    cap->start_ns = now;
    cap->start_trigger_ns = now;
    cap->state = KD_CAPTURING;
    return 0;
}
{{/start_trigger}}
{{#stop_trigger}}

int kd_stop_trigger(void *ctx)
{
    int zero = 0;
    struct kd_capture *cap = capture.lookup(&zero);
    if (!cap || cap->state != KD_CAPTURING)
        return 0;
    cap->stop_trigger_ns = bpf_ktime_get_ns();
    cap->state = KD_DUMPING;
    return 0;
}
{{/stop_trigger}}

/* ---- block I/O issued by the target's threads ---- */
{{#block_io}}
{{> block_abi}}

static __always_inline int bio_wanted(__u64 pid_tgid, __u32 dev)
{
    return target_capturing(pid_tgid) != 0;
}

{{> block_io}}

BPF_HASH(blockio, struct kd_blockio_key, struct kd_blockio, {{max_blockio}});

int kd_block_complete(struct bpf_raw_tracepoint_args *ctx)
{
    void *rq = (void *)ctx->args[0];
    struct kd_bio_key key;
    struct kd_bio_start *s = bio_started(rq, &key);
    if (!s)
        return 0;
    struct kd_blockio_key bkey = { .tid = s->tid, .dev = key.dev, .op = rq_op(rq) };
    __u64 delta = bpf_ktime_get_ns() - s->start_ns;
    bio_start.delete(&key);
    if (!capturing())
        return 0;

    struct kd_blockio zero = {};
    struct kd_blockio *b = blockio.lookup_or_try_init(&bkey, &zero);
    if (!b) {
        note_full(KD_MAP_BLOCKIO);
        return 0;
    }
    stat_add(&b->stat, delta);
    b->bytes += (__u32)ctx->args[2];
    return 0;
}
{{/block_io}}

/* ---- Open vSwitch upcalls, machine-wide (made in softirq context, on
 * behalf of no thread of the target) ---- */
{{#upcalls}}
#define PT_REGS_RC_OFF {{pt_regs_rc_off}}

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
{{/upcalls}}
