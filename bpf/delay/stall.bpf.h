/* ---- --stall: each thread's intervals, decided here; only the long ones
 * reach kdelay ----
 *
 * An interval runs from a thread's return from the poll family (or its
 * start trigger) to its next call of one (or its stop trigger), both in the
 * thread's own context, where it is running. At its start the thread's
 * RUN, READY, STOPPED and budget start again from zero, and its map values
 * are recorded under a new gen (recording_gen; each value is emptied when
 * first written in it, KD_FRESH). At its end, an interval of STALL_MIN_NS
 * or more goes on the stalls ring buffer with the thread's entry, and the
 * thread's values of that interval are held (stall_reading) until kdelay
 * has read them. */
#ifndef KD_DELAY_STALL_BPF_H
#define KD_DELAY_STALL_BPF_H

#include "delay/core.bpf.h"
#include "delay/budget.bpf.h"

#if STALL
#if !WITH_BUDGET
#error "--stall reports the budget: WITH_BUDGET must be on"
#endif
#if STALL_POLL_NRS > 8
#error "more poll-family syscalls than is_poll_family() compares"
#endif

BPF_RINGBUF_OUTPUT(stalls, STALL_RINGBUF_PAGES);
BPF_HASH(stall_reading, __u32, __u32, MAX_THREADS);

/* Whether syscall nr is one of the poll family (poll, ppoll, select, ...),
 * whose calls end an interval and whose returns begin one. */
static __always_inline int is_poll_family(__u32 nr)
{
#if STALL_POLL_NRS == 0
    return 0;
#else
    return nr == STALL_POLL_NR_0
#if STALL_POLL_NRS > 1
           || nr == STALL_POLL_NR_1
#endif
#if STALL_POLL_NRS > 2
           || nr == STALL_POLL_NR_2
#endif
#if STALL_POLL_NRS > 3
           || nr == STALL_POLL_NR_3
#endif
#if STALL_POLL_NRS > 4
           || nr == STALL_POLL_NR_4
#endif
#if STALL_POLL_NRS > 5
           || nr == STALL_POLL_NR_5
#endif
#if STALL_POLL_NRS > 6
           || nr == STALL_POLL_NR_6
#endif
#if STALL_POLL_NRS > 7
           || nr == STALL_POLL_NR_7
#endif
        ;
#endif
}

/* The interval after interval g (0 is none). */
static __always_inline __u32 next_gen(__u32 g)
{
    return g + 1 ? g + 1 : 2;  /* parity alternates across the wrap too */
}

/* The current thread (tid, entry t) begins an interval at now. Its values
 * are keyed by its number's parity (interval_tid): the next number's,
 * unless kdelay has not yet read a stall keyed so, then the one after.
 * With both sets of keys held by unread stalls, the interval is only
 * timed (gen 0). */
static __always_inline void stall_begins(struct kd_thread *t, __u32 tid, __u64 now)
{
    if (t->interval_start)
        return;  /* in one already: a start trigger hit twice */
    t->interval_start = now;
    __u32 gen = next_gen(t->gens);
    __u32 held = interval_tid(tid, gen);
    if (stall_reading.lookup(&held)) {
        gen = next_gen(gen);
        held = interval_tid(tid, gen);
        if (stall_reading.lookup(&held))
            return;
    }
    t->gens = gen;
    t->gen = gen;
    __builtin_memset(&t->run, 0, sizeof(t->run));
    __builtin_memset(&t->ready, 0, sizeof(t->ready));
    __builtin_memset(&t->stopped, 0, sizeof(t->stopped));
    __builtin_memset(&t->budget, 0, sizeof(t->budget));
    t->budget.state = KD_B_RUNNING;
    t->budget.since = now;
    t->stop_start = 0;
    /* The run going on now counts from here: its start in the run queue's
     * clock, which the switch-out measures it by. */
    __u32 cpu = bpf_get_smp_processor_id();
    struct kd_clock_gap *g = clock_gaps.lookup(&cpu);
    t->run_clock = g && g->at ? now - g->gap : 0;
}

/* The current thread (tid, entry t) ends its interval at now: a long one
 * is handed over with the thread's entry. */
static __always_inline void stall_ends(struct kd_thread *t, __u32 tid, struct kd_capture *cap, __u64 now)
{
    __u64 start = t->interval_start;
    if (!start)
        return;
    t->interval_start = 0;
    __u32 gen = t->gen;
    int long_one = now - start >= STALL_MIN_NS;
    if (!gen) {
        if (long_one)
            count(KD_STAT_STALLS_UNWATCHED);  /* only timed */
        return;
    }
    __u64 run_began = t->budget.since;
    budget_leave(t, tid, cap, now, KD_B_RUNNING);
    budget_enter(t, KD_B_RUNNING, 0, now);
    t->gen = 0;
    if (!long_one)
        return;

    struct kd_stall *e = stalls.ringbuf_reserve(sizeof(struct kd_stall));
    if (!e) {
        count(KD_STAT_STALLS_DROPPED);
        return;
    }
    e->start_ns = start;
    e->end_ns = now;
    e->tid = tid;
    e->gen = gen;
    __builtin_memcpy(&e->thread, t, sizeof(e->thread));
    /* The run going on now, to its end. */
    stat_add(&e->thread.run, now > run_began ? now - run_began : 0);
    /* Held before kdelay can see the stall, so that its delete comes after. */
    __u32 held = interval_tid(tid, gen);
    stall_reading.update(&held, &gen);
    stalls.ringbuf_submit(e, 0);
}
#endif

#endif
