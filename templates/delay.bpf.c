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
#define TASK_STATE_OFF {{task_state_off}}
#define TASK_COMM_OFF {{task_comm_off}}
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

/* The current task's tid when it belongs to the target and we capture. */
static __always_inline __u32 target_current(void)
{
    __u64 id = bpf_get_current_pid_tgid();
    if ((id >> 32) != TARGET_TGID || !capturing())
        return 0;
    return (__u32)id;
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

RAW_TRACEPOINT_PROBE(sys_enter)
{
    __u64 id = bpf_get_current_pid_tgid();
    if ((id >> 32) != TARGET_TGID)
        return 0;
    struct kd_capture *cap = capturing();
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
    if ((id >> 32) != TARGET_TGID)
        return 0;
    struct kd_capture *cap = capturing();
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

static __always_inline void woken(void *task)
{
    if (task_u32(task, TASK_TGID_OFF) != TARGET_TGID)
        return;
    __u32 tid = task_u32(task, TASK_PID_OFF);
    struct kd_thread *t = thread_entry(tid, task);
    if (!t)
        return;

    __u64 now = bpf_ktime_get_ns();
    if (t->stop_start) {
        stat_add(&t->stopped, now - t->stop_start);
        t->stop_start = 0;
    }
    t->ready_start = now;
}

RAW_TRACEPOINT_PROBE(sched_wakeup)
{
    if (capturing())
        woken((void *)ctx->args[0]);
    return 0;
}

RAW_TRACEPOINT_PROBE(sched_wakeup_new)
{
    if (capturing())
        woken((void *)ctx->args[0]);
    return 0;
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

    if (task_u32(prev, TASK_TGID_OFF) == TARGET_TGID) {
        now = bpf_ktime_get_ns();
        spill_inflight(task_u32(prev, TASK_PID_OFF), cap);
        struct kd_thread *t = thread_entry(task_u32(prev, TASK_PID_OFF), 0);
        if (t) {
            kd_task_state_t state = 0;
            bpf_probe_read_kernel(&state, sizeof(state),
                                  (char *)prev + TASK_STATE_OFF);
            /* prev is current here: refresh the name it may have changed. */
            bpf_get_current_comm(&t->comm, sizeof(t->comm));
            if (t->run_start) {
                stat_add(&t->run, now - t->run_start);
                hist_add(task_u32(prev, TASK_PID_OFF), KD_HIST_RUN, 0, now - t->run_start);
                t->run_start = 0;
            }
            /* Preempted, or still runnable: it waits for a CPU from now. */
            if (preempt || state == KD_TASK_RUNNING)
                t->ready_start = now;
            else if (state & (KD_TASK_STOPPED | KD_TASK_TRACED))
                t->stop_start = now;
        }
    }

    if (task_u32(next, TASK_TGID_OFF) != TARGET_TGID)
        return 0;
    if (!now)
        now = bpf_ktime_get_ns();
    __u32 next_tid = task_u32(next, TASK_PID_OFF);
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
    if (!target_current())
        return 0;
    int zero = 0;
    irq_began(hardirq_slot.lookup(&zero), ctx->args[1]);
    return 0;
}

RAW_TRACEPOINT_PROBE(irq_handler_exit)
{
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
    if (!target_current())
        return 0;
    int zero = 0;
    irq_began(softirq_slot.lookup(&zero), ctx->args[0]);
    return 0;
}

RAW_TRACEPOINT_PROBE(softirq_exit)
{
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
    return (pid_tgid >> 32) == TARGET_TGID && capturing();
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
