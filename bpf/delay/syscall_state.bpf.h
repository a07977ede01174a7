/* The target's syscalls while they run: per-CPU runs of one syscall, and the
 * syscall in flight on each CPU. Used by the syscall hooks, the switch and
 * the budget. */
#ifndef KD_DELAY_SYSCALL_STATE_BPF_H
#define KD_DELAY_SYSCALL_STATE_BPF_H

#include "delay/core.bpf.h"

/* The syscall's values in the thread's interval gen (recording_gen). */
static __always_inline struct kd_syscall *syscall_entry(struct kd_syscall_key *key, kd_gen_t gen)
{
    struct kd_syscall_key in_interval = { .tid = interval_tid(key->tid, gen), .nr = key->nr };
    struct kd_syscall zero = {};
    struct kd_syscall *s = syscalls.lookup_or_try_init(&in_interval, &zero);
    if (!s) {
        note_full(KD_MAP_SYSCALLS);
        return 0;
    }
    KD_FRESH(s, stat.gen, gen);
    return s;
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

/* A run of one syscall of one thread on one CPU (a getppid storm, a busy
 * read loop, two threads taking turns) is summed in a per-CPU slot and costs
 * no hash lookup per call; a run that needs a slot when all are taken moves
 * the oldest into the syscalls hash (and its histogram into the hist hash).
 * The collector adds what the slots hold at the end of the sample (and
 * zeroes them between samples). */
BPF_PERCPU_ARRAY(recent, struct kd_recent_runs, 1);
#if WITH_HISTOGRAMS
BPF_PERCPU_ARRAY(recent_hists, struct kd_recent_hists, 1);
#endif

/* One more value in the histogram of the CPU's run i. */
#if WITH_HISTOGRAMS
static __always_inline void recent_hist_add(int i, __u64 delta)
{
    int zero = 0;
    struct kd_recent_hists *h = recent_hists.lookup(&zero);
    __u32 bucket = bpf_log2l(delta);
    if (h && bucket < KD_HIST_SLOTS)
        h->count[i & (KD_RECENT_RUNS - 1)][bucket]++;
}
#else
static __always_inline void recent_hist_add(int i, __u64 delta) {}
#endif

/* n more values in bucket b of the histogram of the syscall key. */
#if WITH_HISTOGRAMS
static __always_inline void syscall_hist_add(struct kd_syscall_key *key, __u32 b, __u64 n)
{
    struct kd_hist_key hkey = { .tid = key->tid, .kind = KD_HIST_SYSCALL, .id = key->nr, .slot = b };
    __u64 none = 0;
    __u64 *to = hist.lookup_or_try_init(&hkey, &none);
    if (to)
        __sync_fetch_and_add(to, n);
    else
        note_full(KD_MAP_HIST);
}
#else
static __always_inline void syscall_hist_add(struct kd_syscall_key *key, __u32 b, __u64 n) {}
#endif

/* The run in slot i, of the syscall done, leaves the CPU's runs: its
 * histogram goes to the hist hash, a bucket at a time, and is emptied. */
#if WITH_HISTOGRAMS
static __always_inline void recent_hist_flush(int i, struct kd_syscall_key *done)
{
    int zero = 0;
    struct kd_recent_hists *h = recent_hists.lookup(&zero);
    if (!h)
        return;
    __u64 *row = h->count[i & (KD_RECENT_RUNS - 1)];
#pragma clang loop unroll(disable)
    for (__u32 b = 0; b < KD_HIST_SLOTS; b++) {
        __u64 n = row[b];
        if (!n)
            continue;
        row[b] = 0;
        syscall_hist_add(done, b, n);
    }
}
#else
static __always_inline void recent_hist_flush(int i, struct kd_syscall_key *done) {}
#endif

static __always_inline void recent_add(struct kd_syscall_key *key, __u64 delta)
{
    int zero = 0;
    struct kd_recent_runs *runs = recent.lookup(&zero);
    if (!runs)
        return;
#pragma unroll
    for (int i = 0; i < KD_RECENT_RUNS; i++) {
        struct kd_recent *run = &runs->run[i];
        if (run->tid == key->tid && run->nr == key->nr && run->stat.count) {
            stat_add(&run->stat, delta);
            recent_hist_add(i, delta);
            return;
        }
    }
    __u32 slot = runs->next & (KD_RECENT_RUNS - 1);
    runs->next = slot + 1;
    struct kd_recent *r = &runs->run[slot];
    if (r->stat.count) {
        /* Runs on another thread's behalf: no thread_entry() here, it would
         * take the current thread's name. */
        struct kd_syscall_key done = { .tid = r->tid, .nr = r->nr };
        struct kd_syscall *s = syscall_entry(&done, 1);  /* a sample's: --stall has no runs */
        if (s)
            stat_merge(&s->stat, &r->stat);
        recent_hist_flush(slot, &done);
    }
    if (r->tid != key->tid)
        thread_entry(key->tid, 0);
    r->tid = key->tid;
    r->nr = key->nr;
    r->stat.count = 1;
    r->stat.total_ns = delta;
    r->stat.min_ns = delta;
    r->stat.max_ns = delta;
    recent_hist_add(slot, delta);
}

/* One syscall of key, straight into the hashes, in the thread's interval
 * gen: for a hook that may not touch the CPU's runs (slots_claim), and for
 * --stall, whose values are per interval. */
static __always_inline void syscall_add(struct kd_syscall_key *key, __u64 delta, kd_gen_t gen)
{
    thread_entry(key->tid, 0);
    struct kd_syscall *s = syscall_entry(key, gen);
    if (s)
        stat_add(&s->stat, delta);
    __u32 bucket = bpf_log2l(delta);
    if (bucket < KD_HIST_SLOTS)
        syscall_hist_add(key, bucket, 1);
}

/* The target's syscall in flight on this CPU. A thread leaves the CPU only
 * through sched_switch, which moves its in-flight syscall into its thread
 * entry (spill_inflight); so a syscall costs no hash lookup on entry or
 * exit, and its exit needs no pt_regs read. A stale slot (from before this
 * sample) is older than capture.start_ns and ignored. */
struct kd_inflight {
    __u32 tid;
    __u32 nr;
    __u64 start;
    __u32 busy;  /* a syscall hook is updating this CPU's slots */
    __u32 pad;
};
BPF_PERCPU_ARRAY(inflight, struct kd_inflight, 1);

/* A syscall hook can be preempted on a preemptible kernel (7.2 runs BPF on
 * the syscall tracepoints with only migration disabled), and another target
 * thread's hook may then run on this CPU in the middle of its updates of
 * the CPU's slots (inflight, recent). The hook that claims the slots marks
 * them busy until it is done; any other hook takes the slow path, which
 * touches only its own thread's entries, and the switch spills nothing.
 * Same CPU, so a compiler barrier orders the mark. */
static __always_inline int slots_claim(struct kd_inflight *f)
{
    if (*(volatile __u32 *)&f->busy)
        return 0;
    *(volatile __u32 *)&f->busy = 1;
    asm volatile("" ::: "memory");
    return 1;
}

static __always_inline void slots_release(struct kd_inflight *f)
{
    asm volatile("" ::: "memory");
    *(volatile __u32 *)&f->busy = 0;
}

/* The sys_enter step: thread tid enters syscall nr at now, into this CPU's
 * slots (f); while a preempted hook holds them, into its entry, as if
 * spilled at once. */
static __always_inline void syscall_entered(struct kd_inflight *f, __u32 tid, __u32 nr, __u64 now)
{
    if (slots_claim(f)) {
        f->tid = tid;
        f->nr = nr;
        f->start = now;
        slots_release(f);
        return;
    }
    struct kd_thread *t = thread_entry(tid, 0);
    if (t) {
        t->sys_start = now;
        t->sys_nr = nr;
    }
}

/* Whether the slot holds tid's syscall entered in this sample. A slot left
 * by a syscall whose exit fell after the end of an earlier sample (the
 * uretprobe syscall of a ur: stop trigger, always) still names the thread,
 * and must not shadow its real syscall, spilled on another CPU. */
static __always_inline int inflight_is(struct kd_inflight *f, __u32 tid, struct kd_capture *cap)
{
    return f && f->start && f->tid == tid && f->start >= cap->start_ns;
}

/* The thread (tid, its entry t) leaves the CPU: its syscall in flight
 * here, if any, waits for its exit in the thread's entry. While a
 * preempted hook holds the slots, no other thread's syscall is in them. */
static __always_inline void spill_inflight(struct kd_thread *t, __u32 tid, struct kd_capture *cap)
{
    int zero = 0;
    struct kd_inflight *f = inflight.lookup(&zero);
    if (!inflight_is(f, tid, cap) || f->busy)
        return;
    if (t) {
        t->sys_start = f->start;
        t->sys_nr = f->nr;
    }
    f->start = 0;
}

#endif
