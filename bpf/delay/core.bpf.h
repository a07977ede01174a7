/* What every part of the delay program shares: the target, the capture
 * state, the thread entries, statistics and histograms. No kernel headers:
 * every struct offset comes from the running kernel's BTF, through
 * kd_config.h, which kdelay generates from the run's final config
 * (src/delay/program.cpp). */
#ifndef KD_DELAY_CORE_BPF_H
#define KD_DELAY_CORE_BPF_H

#include "kd_config.h"
#include "delay_abi.h"
#include "targets.bpf.h"
#include "typed_load.bpf.h"
#include "kd_config_names.h"

KD_REQUIRE_OFFSETS(KD_TASK_OFFSETS)
KD_REQUIRE_CONFIG(KD_DELAY_CONFIG)

typedef TASK_STATE_TYPE kd_task_state_t;
typedef PT_REGS_NR_TYPE kd_regs_nr_t;

/* Task state bits, stable across kernel versions. */
#define KD_TASK_RUNNING 0x0
#define KD_TASK_STOPPED 0x4
#define KD_TASK_TRACED 0x8
#define KD_TASK_DEAD 0x80

/* A program on a raw tracepoint whose arguments the kernel types from BTF
 * (tp_btf): a task it passes is read with plain loads (task_ids).
 * Same context as RAW_TRACEPOINT_PROBE; src/loader/btf_tracepoint.cpp loads
 * it by this name. */
#define BTF_TRACEPOINT_PROBE(event) int tp_btf__##event(struct bpf_raw_tracepoint_args *ctx)
/* A second program on the same event, named for its step; attached after
 * the first (probes/delay.json), so it runs after it. */
#define BTF_TRACEPOINT_STEP(event, step) int tp_btf__##event##__##step(struct bpf_raw_tracepoint_args *ctx)

BPF_ARRAY(capture, struct kd_capture, 1);
BPF_PERCPU_ARRAY(map_full, __u64, MAP_FULL_COUNT);
BPF_PERCPU_ARRAY(counters, __u64, KD_STAT_COUNT);
#if WITH_SYSCALL_EVENTS
BPF_RINGBUF_OUTPUT(events, RINGBUF_PAGES);
#endif
#if WITH_STACK_TRACES
BPF_STACK_TRACE(stack_traces, STACK_TRACE_SIZE);
#endif
/* The thread entries. Most live in thread_slots, an array indexed by the
 * tid's low bits that the JIT turns into an address computation; a thread
 * whose slot another thread holds lives in the threads hash. A hash lookup
 * costs more than the rest of a wakeup's work, and a context switch needs
 * two. */
#define THREAD_SLOTS MAX_THREADS
/* A free slot is claimed with a compare-and-swap, which BPF has since
 * Linux 5.12 (SLOT_CLAIMS); without it every entry lives in the threads
 * hash. */
BPF_ARRAY(thread_slots, struct kd_thread, THREAD_SLOTS);
BPF_HASH(threads, __u32, struct kd_thread, MAX_THREADS);
/* An empty entry to create one in the hash from: a map value, not a
 * kd_thread on the stack of every program that may create one (two per
 * sched_switch), which BPF's 512 bytes cannot hold beside the budget's
 * work. Never written. */
BPF_ARRAY(thread_empty, struct kd_thread, 1);
BPF_HASH(syscalls, struct kd_syscall_key, struct kd_syscall, MAX_SYSCALLS);
BPF_HASH(hardirqs, struct kd_hardirq_key, struct kd_stat, MAX_HARDIRQS);
BPF_HASH(softirqs, struct kd_softirq_key, struct kd_stat, MAX_SOFTIRQS);

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

#if WITH_HISTOGRAMS
BPF_HASH(hist, struct kd_hist_key, __u64, MAX_HIST);
BPF_ARRAY(thread_hists, struct kd_thread_hists, THREAD_SLOTS);
#endif

/* One more value in a log2 histogram; with the stats it mirrors, so the
 * histogram's total always equals the COUNT column. */
#if WITH_HISTOGRAMS
static __always_inline void hist_add(__u32 tid, __u32 kind, __u32 id, __u64 delta)
{
    struct kd_hist_key key = { .tid = tid, .kind = kind, .id = id, .slot = bpf_log2l(delta) };
    __u64 zero = 0;
    __u64 *n = hist.lookup_or_try_init(&key, &zero);
    if (n)
        __sync_fetch_and_add(n, 1);
    else
        note_full(KD_MAP_HIST);
}
#else
static __always_inline void hist_add(__u32 tid, __u32 kind, __u32 id, __u64 delta) {}
#endif

/* A wait of the current thread that began at *start ends now: how long it
 * took, or 0 when it began before this sample. *start is cleared. */
static __always_inline __u64 wait_ends(__u64 *start, struct kd_capture *cap)
{
    __u64 began = *start;
    *start = 0;
    return began && began >= cap->start_ns ? bpf_ktime_get_ns() - began : 0;
}

/* --stall: a map value of a thread, v, is recorded in the thread's
 * current interval g; one written in an earlier interval (its gen_field
 * differs) is emptied first. A sample keeps every value all window. */
#if STALL
#define KD_FRESH(v, gen_field, g)                     \
    do {                                              \
        if ((v)->gen_field != (g)) {                  \
            __builtin_memset((v), 0, sizeof(*(v)));   \
            (v)->gen_field = (g);                     \
        }                                             \
    } while (0)
#else
#define KD_FRESH(v, gen_field, g) do { } while (0)
#endif

/* delta into the stat s that a map gave for the thread's (kind, id) in its
 * interval gen, and into its histogram; s is null when that map (full, a
 * KD_MAP_*) is full. */
static __always_inline void stat_into(struct kd_stat *s, int full, __u32 tid, __u32 hist_kind, __u32 id, __u64 delta,
                                      kd_gen_t gen)
{
    if (!s) {
        note_full(full);
        return;
    }
    KD_FRESH(s, gen, gen);
    stat_add(s, delta);
    hist_add(tid, hist_kind, id, delta);
}

/* A task's tgid (returned) and tid, from a task the kernel typed from BTF:
 * two loads, no helper call. */
static __always_inline __u32 task_ids(void *task, __u32 *tid)
{
    *tid = typed_u32(task, TASK_PID_OFF);
    return typed_u32(task, TASK_TGID_OFF);
}

/* The index of tid's slot, in thread_slots and in the maps beside it. */
static __always_inline __u32 thread_slot_index(__u32 tid)
{
    return tid & (THREAD_SLOTS - 1);
}

/* The slot of thread_slots where tid's entry lives, unless another thread
 * holds it. */
static __always_inline struct kd_thread *thread_slot(__u32 tid)
{
    __u32 slot = thread_slot_index(tid);
    return thread_slots.lookup(&slot);
}

/* The thread's entry, or null when it has none yet. A tid is in its slot
 * or in the hash, never both. In a sample a slot is taken for good until
 * the collector empties all of them, so a free slot means no thread with
 * those low bits has an entry, in the hash either; with --stall an exited
 * thread frees its slot (thread_free), and the hash may still hold another. */
static __always_inline struct kd_thread *thread_find(__u32 tid)
{
    if (SLOT_CLAIMS) {
        struct kd_thread *t = thread_slot(tid);
        if (!t)
            return 0;
        if (t->tid == tid)
            return t;
        if (!STALL && !t->tid)
            return 0;
    }
    return threads.lookup(&tid);
}

/* A new entry t: with --stall, a slot may hold what its last thread left
 * (thread_free leaves it), and the interval numbers start at the clock, above
 * any that an earlier thread of the same tid can have reached. */
static __always_inline void thread_fresh(struct kd_thread *t)
{
    if (!STALL)
        return;
    const int after_tid = __builtin_offsetof(struct kd_thread, tid) + sizeof(t->tid);
    __builtin_memset((char *)t + after_tid, 0, sizeof(*t) - after_tid);
    t->gens = bpf_ktime_get_ns();
}

/* The thread's name and process, from task, or from the current task
 * without one. */
static __always_inline void take_ids(struct kd_thread *t, void *task)
{
    if (task) {
        bpf_probe_read_kernel(t->comm, KD_COMM_LEN, (char *)task + TASK_COMM_OFF);
        bpf_probe_read_kernel(&t->tgid, sizeof(t->tgid), (char *)task + TASK_TGID_OFF);
    } else {
        bpf_get_current_comm(t->comm, KD_COMM_LEN);
        t->tgid = bpf_get_current_pid_tgid() >> 32;
    }
}

/* Claims the free slot t for thread tid: what it held (0: it is tid's now).
 * Only with BPF compare-and-swap (5.12), which a 5.10 program may not hold
 * even where it is never run. */
#if SLOT_CLAIMS
static __always_inline __u32 slot_claim(struct kd_thread *t, __u32 tid)
{
    return __sync_val_compare_and_swap(&t->tid, 0, tid);
}
#else
static __always_inline __u32 slot_claim(struct kd_thread *t, __u32 tid) { return KD_NO_ID; }
#endif

/* The thread's entry, created on first sight. The name is taken now, in the
 * kernel, so a thread that exits before the report keeps it. */
static __always_inline struct kd_thread *thread_entry(__u32 tid, void *task)
{
    struct kd_thread *t;
    if (SLOT_CLAIMS) {
        t = thread_slot(tid);
        if (!t)
            return 0;
        if (t->tid == tid)
            return t;
        /* Two CPUs may claim a free slot at once: one wins, the other goes
         * on to the hash, unless the winner claimed it for the same thread
         * (its switch and its wakeup, seen at once), which then has its
         * entry. */
        /* With --stall, a slot freed by an exit: the thread may be in the
         * hash already. (As a block under if (STALL), the verifier's count
         * of sched_switch rose 5%.) */
        struct kd_thread *hashed = STALL ? threads.lookup(&tid) : 0;
        if (hashed)
            return hashed;
        if (!t->tid) {
            __u32 held = slot_claim(t, tid);
            if (held == 0) {
                thread_fresh(t);
                take_ids(t, task);
            }
            if (held == 0 || held == tid)
                return t;
        }
    }

    t = threads.lookup(&tid);
    if (t)
        return t;
    int zero = 0;
    struct kd_thread *empty = thread_empty.lookup(&zero);
    if (!empty)
        return 0;
    if (threads.insert(&tid, empty) != 0) {
        t = threads.lookup(&tid);
        if (!t)
            note_full(KD_MAP_THREADS);
        return t;
    }
    t = threads.lookup(&tid);
    if (t) {
        t->tid = tid;
        thread_fresh(t);
        take_ids(t, task);
    }
    return t;
}

/* --stall: thread tid has exited; its entry goes. */
static __always_inline void thread_free(__u32 tid)
{
    if (SLOT_CLAIMS) {
        struct kd_thread *t = thread_slot(tid);
        if (t && t->tid == tid) {
            t->tid = 0;
            return;
        }
    }
    threads.delete(&tid);
}

/* One more RUN or READY value (kind) of the thread tid. Every context
 * switch adds two; a thread in its slot keeps them beside it, where a value
 * costs an increment instead of a hash update. Only the thread's own
 * switches add them, and a thread is on one CPU at a time: no atomic add. */
#if WITH_HISTOGRAMS
static __always_inline void thread_hist_add(__u32 tid, __u32 kind, __u64 delta)
{
    struct kd_thread *in_slot = thread_slot(tid);
    if (!in_slot || in_slot->tid != tid) {
        hist_add(tid, kind, 0, delta);
        return;
    }
    __u32 slot = thread_slot_index(tid);
    struct kd_thread_hists *h = thread_hists.lookup(&slot);
    __u32 bucket = bpf_log2l(delta);
    if (h && bucket < KD_HIST_SLOTS)
        h->count[kind == KD_HIST_RUN ? 0 : 1][bucket]++;
}
#else
static __always_inline void thread_hist_add(__u32 tid, __u32 kind, __u64 delta) {}
#endif

/* Where the thread's values go now: with --stall, its current interval (0:
 * it is in none, and nothing is recorded); in a sample, always 1. */
static __always_inline kd_gen_t recording_gen(struct kd_thread *t)
{
    if (!STALL)
        return 1;
    return t ? t->gen : 0;
}

/* The same for thread tid, whose entry is looked up only with --stall. */
static __always_inline kd_gen_t tid_recording_gen(__u32 tid)
{
    if (!STALL)
        return 1;
    return recording_gen(thread_find(tid));
}

/* The tid to key a value of thread tid with, in its interval gen: the
 * interval's parity in KD_KEY_INTERVAL_BIT with --stall. */
static __always_inline __u32 interval_tid(__u32 tid, kd_gen_t gen)
{
    return STALL ? KD_KEY_TID(tid, gen) : tid;
}

/* The capture state when the task of id (pid_tgid) belongs to the target and
 * we capture, else 0. The tgid is checked first: most events are not the
 * target's, and that check needs no map lookup. */
static __always_inline struct kd_capture *target_capturing(__u64 id)
{
    if (!is_target_current(id >> 32))
        return 0;
    return capturing();
}

/* The capture state when the current task belongs to the target and we
 * capture, with the task's tid in *tid; else 0. */
static __always_inline struct kd_capture *capturing_current(__u32 *tid)
{
    __u64 id = bpf_get_current_pid_tgid();
    *tid = (__u32)id;
    return target_capturing(id);
}

/* The current task's tid when it belongs to the target and we capture. */
static __always_inline __u32 target_current(void)
{
    __u32 tid;
    return capturing_current(&tid) ? tid : 0;
}

#endif
