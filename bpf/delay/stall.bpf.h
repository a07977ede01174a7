/* ---- --stall: each thread's intervals, decided here; only the long ones
 * reach kdelay ----
 *
 * An interval runs from a thread's return from its loop's wait (or its
 * start trigger) to its next call of it (or its stop trigger), both in the
 * thread's own context, where it is running. After a wait it blocked in,
 * it begins at the switch that gives the thread its CPU back, and a block
 * in the poll family ends one: the switches are never skipped, where the
 * kernel skips a syscall probe on a CPU where one is running (7.2 runs
 * them preemptibly). The loop's wait is a call of
 * the poll family at a call site where the thread has blocked (see
 * KD_LOOP_SITES); a call restarted after a stop (-ERESTART*, then
 * restart_syscall) is the same wait going on. At its start the thread's
 * RUN, READY, STOPPED and budget start again from zero, and its map values
 * are recorded under a new gen (recording_gen; each value is emptied when
 * first written in it, KD_FRESH). At its end, an interval of STALL_NS
 * or more goes on the stalls ring buffer with the thread's entry, and the
 * thread's values of that interval are held (stall_reading) until kdelay
 * has read them. */
#ifndef KD_DELAY_STALL_BPF_H
#define KD_DELAY_STALL_BPF_H

#include "delay/core.bpf.h"
#include "delay/budget.bpf.h"
#include "delay/profile.bpf.h"

#if STALL
#if !WITH_BUDGET
#error "--stall reports the budget: WITH_BUDGET must be on"
#endif
#if STALL_POLL_NRS > 8
#error "more poll-family syscalls than is_poll_family() compares"
#endif

BPF_RINGBUF_OUTPUT(stalls, STALL_RINGBUF_PAGES);
BPF_RINGBUF_OUTPUT(exits, EXITS_RINGBUF_PAGES);
BPF_HASH(stall_reading, __u32, kd_gen_t, MAX_THREADS);

/* The poll family's syscall i, padded with KD_NO_ID as the target's
 * processes are (targets.bpf.h). */
static __always_inline __u32 stall_poll_nr(int i)
{
    return i == 0 ? STALL_POLL_NR_0 : i == 1 ? STALL_POLL_NR_1 : i == 2 ? STALL_POLL_NR_2 : i == 3 ? STALL_POLL_NR_3
         : i == 4 ? STALL_POLL_NR_4 : i == 5 ? STALL_POLL_NR_5 : i == 6 ? STALL_POLL_NR_6 : STALL_POLL_NR_7;
}

/* Whether syscall nr is one of the poll family (poll, ppoll, select, ...),
 * whose calls end an interval and whose returns begin one. */
static __always_inline int is_poll_family(__u32 nr)
{
#pragma unroll
    for (int i = 0; i < STALL_POLL_NRS; i++)
        if (nr == stall_poll_nr(i))
            return 1;
    return 0;
}

/* The context switches so far, voluntary and involuntary, of task (0: the
 * current task). */
static __always_inline void context_switches(void *task, __u64 *voluntary, __u64 *involuntary)
{
    char *of = task ? (char *)task : (char *)bpf_get_current_task();
    bpf_probe_read_kernel(voluntary, sizeof(*voluntary), of + TASK_NVCSW_OFF);
    bpf_probe_read_kernel(involuntary, sizeof(*involuntary), of + TASK_NIVCSW_OFF);
}

/* The interval after interval g. A new entry's gens starts at the clock
 * (thread_fresh), and 64 bits do not wrap. */
static __always_inline kd_gen_t next_gen(kd_gen_t g)
{
    return g + 1;
}

#if STALL_SITES
BPF_HASH(poll_programs, __u32, struct kd_poll_program, KD_SITE_PROCESSES);
BPF_HASH(poll_sites, struct kd_site_key, __u64, KD_SITE_PROCESSES * 16);
/* Processes whose poll sites kdelay is to read (the value is unused). */
BPF_HASH(sites_wanted, __u32, __u32, KD_SITE_PROCESSES);

/* The call site of the current thread's syscall (entry t, regs: its
 * pt_regs); 0 when it cannot be told. */
static __always_inline __u64 call_site(struct kd_thread *t, void *regs)
{
    __u64 sp = 0;
    bpf_probe_read_kernel(&sp, sizeof(sp), (char *)regs + PT_REGS_SP_OFF);
    struct kd_site_key key = { .tgid = t->tgid };
    /* The last site again: no look-up at all (a site is kept only while
     * its process's are). */
    if (t->site_fn && t->site_sp == sp && t->site_word < KD_SITE_WORDS &&
        !bpf_probe_read_user(&key.ret, sizeof(key.ret), (void *)(sp + 8 * t->site_word)) && key.ret == t->site_ret)
        return t->site_fn;
    struct kd_poll_program *p = poll_programs.lookup(&key.tgid);
    if (!p) {
        __u32 one = 1;
        sites_wanted.update(&key.tgid, &one);
        return 0;
    }
    if (!p->sites)
        return 0;
    for (int i = 0; i < KD_SITE_WORDS; i++) {
        if (bpf_probe_read_user(&key.ret, sizeof(key.ret), (void *)(sp + 8 * i)))
            return 0;
        __u64 *function = poll_sites.lookup(&key);
        if (function) {
            t->site_sp = sp;
            t->site_ret = key.ret;
            t->site_fn = *function;
            t->site_word = i;
            return *function;
        }
    }
    return 0;
}
#else
static __always_inline __u64 call_site(struct kd_thread *t, void *regs)
{
    return 0;
}
#endif

/* Whether a call of the poll family at site is the thread's loop's wait:
 * at a site where it blocked; any call while none is known yet, or when
 * the site cannot be told. */
static __always_inline int is_loop_wait(struct kd_thread *t, __u64 site)
{
    if (!site || !t->loop_sites[0])
        return 1;
#pragma unroll
    for (int i = 0; i < KD_LOOP_SITES; i++)
        if (t->loop_sites[i] == site)
            return 1;
    return 0;
}

/* The thread blocked in a call at site: it is a loop's wait from now on
 * (a fifth site takes the last one's place). */
static __always_inline void learn_loop_site(struct kd_thread *t, __u64 site)
{
    if (!site)
        return;
#pragma unroll
    for (int i = 0; i < KD_LOOP_SITES; i++) {
        if (t->loop_sites[i] == site)
            return;
        if (!t->loop_sites[i]) {
            t->loop_sites[i] = site;
            return;
        }
    }
    t->loop_sites[KD_LOOP_SITES - 1] = site;
}

/* A syscall's return value: one of -ERESTARTSYS .. -ERESTART_RESTARTBLOCK
 * (512 to 516) means it is interrupted, to be restarted, not returned. */
static __always_inline int is_restart(__s64 ret)
{
    return ret <= -512 && ret >= -516;
}

/* -EINTR: a signal, or a stop that epoll_wait() does not restart after
 * (signal(7)); the loop calls its wait again, as Open vSwitch's
 * time_poll() does, so the wait goes on. */
#define KD_EINTR 4

/* The thread (tid, entry t; task: its task, 0 when it is the current one)
 * begins an interval at now. Its values
 * are keyed by its number's parity (interval_tid): the next number's,
 * unless kdelay has not yet read a stall keyed so, then the one after.
 * With both sets of keys held by unread stalls, the interval is only
 * timed (gen 0). */
static __always_inline void stall_begins(struct kd_thread *t, __u32 tid, void *task, __u64 now)
{
    /* In one already: its end was not seen (a stop trigger that an
     * exception or a longjmp skipped), or the loop's wait it was called at
     * was learnt only as it returned. It is not one interval of the loop:
     * it goes unreported, and this one begins. */
    t->interval_start = now;
    t->intervals++;
    t->gen = 0;  /* until it has keys of its own */
    kd_gen_t gen = next_gen(t->gens);
    __u32 held = interval_tid(tid, gen);
    if (stall_reading.lookup(&held)) {
        gen = next_gen(gen);
        held = interval_tid(tid, gen);
        if (stall_reading.lookup(&held))
            return;
    }
    t->gens = gen;
    t->gen = gen;
    t->had_interval = 1;
    timeline_open(tid, gen);
    wait_stacks_open(tid, gen);
    profile_open(tid, gen);
    context_switches(task, &t->nvcsw_at_start, &t->nivcsw_at_start);
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
    kd_gen_t gen = t->gen;
    int long_one = now - start >= STALL_NS;
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
    context_switches(0, &e->nvcsw, &e->nivcsw);
    e->nvcsw -= t->nvcsw_at_start;
    e->nivcsw -= t->nivcsw_at_start;
    __builtin_memcpy(&e->thread, t, sizeof(e->thread));
    /* The run going on now, to its end. */
    stat_add(&e->thread.run, now > run_began ? now - run_began : 0);
    /* Held before kdelay can see the stall, so that its delete comes after. */
    __u32 held = interval_tid(tid, gen);
    stall_reading.update(&held, &gen);
    stalls.ringbuf_submit(e, 0);
}

/* Whether the thread's interval began when it got a CPU back in its wait
 * (stall_resumed): the wait's return then has nothing to begin. */
static __always_inline int stall_begun_in_wait(struct kd_thread *t)
{
    int begun = t->begun_in_wait;
    t->begun_in_wait = 0;
    return begun && t->interval_start;
}

/* The wait does not return (a signal interrupts it, to be restarted or to
 * return -EINTR, and the loop calls it again): an interval begun in it
 * goes, uncounted. */
static __always_inline void stall_unbegin(struct kd_thread *t)
{
    if (!t->begun_in_wait)
        return;
    t->begun_in_wait = 0;
    t->interval_start = 0;
    t->gen = 0;
    t->intervals--;
}

/* The current thread (tid, entry t, pt_regs regs) calls the poll family:
 * at its loop's wait, its interval ends. */
static __always_inline void stall_poll_called(struct kd_thread *t, __u32 tid, struct kd_capture *cap, void *regs,
                                              __u64 now)
{
    t->poll_entered = now;
    t->poll_restarting = 0;
    t->begun_in_wait = 0;
    /* With no loop's site known yet, every call is a loop's: no need to
     * find this one's (its return finds it if it blocks). */
    t->poll_site = t->loop_sites[0] ? call_site(t, regs) : 0;
    if (t->interval_start && is_loop_wait(t, t->poll_site))
        stall_ends(t, tid, cap, now);
}

/* The current thread (tid, entry t) returns from syscall nr with ret: a
 * return from its loop's wait, or from the restart of one, begins an
 * interval; a call it blocked in teaches it a loop's site. */
static __always_inline void stall_syscall_returned(struct kd_thread *t, __u32 tid, __u32 nr, __s64 ret, void *regs)
{
    if (nr == STALL_RESTART_NR && nr) {
        if (!t->poll_restarting || is_restart(ret))
            return;
        t->poll_restarting = 0;
        t->poll_entered = 0;
        if (!stall_begun_in_wait(t))
            stall_begins(t, tid, 0, bpf_ktime_get_ns());
        return;
    }
    if (!is_poll_family(nr))
        return;
    if (is_restart(ret)) {
        t->poll_restarting = 1;
        stall_unbegin(t);
        return;
    }
    if (ret == -KD_EINTR) {
        t->poll_entered = 0;
        stall_unbegin(t);
        return;
    }
    /* Woken inside the call (or in a call entered before kdelay saw it). */
    int blocked = t->woke_ns && t->woke_ns >= t->poll_entered;
    /* Needed to learn it, or to tell it from the known ones; the stack is
     * the entry's, where it was found if sites were known then. */
    __u64 site = t->poll_entered && t->poll_site ? t->poll_site
                 : blocked || t->loop_sites[0]  ? call_site(t, regs)
                                                : 0;
    if (blocked)
        learn_loop_site(t, site);
    t->poll_entered = 0;
    if (!stall_begun_in_wait(t) && is_loop_wait(t, site))
        stall_begins(t, tid, 0, bpf_ktime_get_ns());
}

/* The sys_enter step (ctx: its arguments): thread tid enters syscall nr at
 * now. */
static __always_inline void stall_syscall_entered(struct bpf_raw_tracepoint_args *ctx, __u32 tid, __u32 nr,
                                                  struct kd_capture *cap, __u64 now)
{
    if (!is_poll_family(nr))
        return;
    struct kd_thread *t = thread_entry(tid, 0);
    if (t)
        stall_poll_called(t, tid, cap, (void *)ctx->args[0], now);
}

/* The sys_exit step (ctx: its arguments): thread tid returns. */
static __always_inline void stall_syscall_exited(struct bpf_raw_tracepoint_args *ctx, __u32 tid)
{
    kd_regs_nr_t nr = 0;
    bpf_probe_read_kernel(&nr, sizeof(nr), (char *)ctx->args[0] + PT_REGS_NR_OFF);
    if (!is_poll_family((__u32)nr) && !((__u32)nr == STALL_RESTART_NR && STALL_RESTART_NR))
        return;
    struct kd_thread *t = thread_entry(tid, 0);
    if (t)
        stall_syscall_returned(t, tid, (__u32)nr, (__s64)ctx->args[1], (void *)ctx->args[0]);
}

/* The syscall the thread of task is in now: its pt_regs' number, the
 * kernel's own (-1 for none), which no probe the kernel skipped can leave
 * stale. Without bpf_task_pt_regs (before 5.15) the budget's, which a
 * skipped sys_enter or sys_exit can leave stale: fallback. */
static __always_inline __u32 task_syscall_nr(void *task, __u32 fallback)
{
#if TASK_PT_REGS
    kd_regs_nr_t nr = -1;
    bpf_probe_read_kernel(&nr, sizeof(nr), (char *)bpf_task_pt_regs(task) + PT_REGS_NR_OFF);
    return (__u32)nr;
#else
    return fallback;
#endif
}

/* The thread (tid, entry t, task next) gets a CPU at now. Woken inside its
 * loop's wait, it is about to return from it: its interval begins here, a
 * few microseconds before the return, so that a return whose probe the
 * kernel skipped (a run of sys_exit was in progress on the CPU) loses no
 * interval. A wait that never blocked begins its interval at its return. */
static __always_inline void stall_resumed(struct kd_thread *t, __u32 tid, void *next, __u64 now)
{
    if (!t->poll_entered || t->interval_start || t->poll_restarting || t->woke_ns < t->poll_entered)
        return;
    /* Still in the wait: the syscall it blocked in is one of the family. A
     * wait whose return went unseen is over, and a later block (a futex)
     * must not begin the interval late. */
    __u32 in = t->budget.in_syscall;
    if (!is_poll_family(task_syscall_nr(next, in ? in - 1 : -1)))
        return;
    stall_begins(t, tid, next, now);
    t->begun_in_wait = 1;
}

/* The current thread (tid, entry t, task prev) has left its CPU, blocked
 * since `at`. A call of the poll family whose probe the kernel skipped is
 * taken as called there, where it began to wait: it ends an open interval,
 * and its wake (stall_resumed) or its return begins the next. */
static __always_inline void stall_blocked(struct kd_thread *t, __u32 tid, struct kd_capture *cap, void *prev,
                                          __u64 at)
{
    if (t->poll_entered)
        return;
    __u32 nr = task_syscall_nr(prev, t->budget.blocked_nr);
    if (!is_poll_family(nr))
        return;
    t->poll_entered = at;
    t->poll_restarting = 0;
    t->poll_site = 0;  /* not told: a loop's (is_loop_wait) */
    if (!t->interval_start)
        return;
    stall_ends(t, tid, cap, at);
    budget_set(t, KD_B_BLOCKED, nr, at);  /* stall_ends left it RUNNING */
}

/* The current thread (tid, entry t) exits: an interval it was in is no
 * loop's stall, and its entry goes (thread_free), so that a watch holds
 * only live threads and a tid used again starts clean. */
static __always_inline void stall_thread_exits(struct kd_thread *t, __u32 tid)
{
    t->interval_start = 0;
    t->gen = 0;
    /* Its events go now, but a stall's that kdelay has yet to read (which
     * kdelay deletes once read): threads that come and go by the thousand
     * a second must not fill the map between kdelay's sweeps. */
#if WITH_TIMELINE || WAIT_STACKS || PROFILE_HZ
    __u32 even = KD_KEY_TID(tid, 0), odd = KD_KEY_TID(tid, 1);
    if (!stall_reading.lookup(&even)) {
        timeline_forget(even);
        wait_stacks_forget(even);
        profile_forget(even);
    }
    if (!stall_reading.lookup(&odd)) {
        timeline_forget(odd);
        wait_stacks_forget(odd);
        profile_forget(odd);
    }
#endif
    if (t->had_interval || t->intervals) {
        struct kd_exit *e = exits.ringbuf_reserve(sizeof(struct kd_exit));
        if (e) {
            e->tid = tid;
            e->tgid = t->tgid;
            e->last_gen = t->gens;
            e->intervals = t->intervals;
            __builtin_memcpy(e->comm, t->comm, sizeof(e->comm));
            char *leader = 0;
            bpf_probe_read_kernel(&leader, sizeof(leader), (char *)bpf_get_current_task() + TASK_GROUP_LEADER_OFF);
            bpf_probe_read_kernel(e->process, sizeof(e->process), leader + TASK_COMM_OFF);
            exits.ringbuf_submit(e, 0);
        } else {
            count(KD_STAT_EXITS_DROPPED);
        }
    }
    thread_free(tid);
}
#else
static __always_inline void stall_thread_exits(struct kd_thread *t, __u32 tid) {}
static __always_inline void stall_resumed(struct kd_thread *t, __u32 tid, void *next, __u64 now) {}
static __always_inline void stall_syscall_entered(struct bpf_raw_tracepoint_args *ctx, __u32 tid, __u32 nr,
                                                  struct kd_capture *cap, __u64 now) {}
static __always_inline void stall_syscall_exited(struct bpf_raw_tracepoint_args *ctx, __u32 tid) {}
static __always_inline void stall_blocked(struct kd_thread *t, __u32 tid, struct kd_capture *cap, void *prev,
                                          __u64 at) {}
#endif

#endif
