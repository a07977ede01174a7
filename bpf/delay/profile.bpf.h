/* ---- --profile HZ: where a thread ran ----
 *
 * A CPU-clock event on every CPU runs kd_profile_sample each 1/HZ s of CPU
 * time. Each reads the CPU clock, for the time it stands for. A sample
 * that finds no target thread costs the thread's look-up and is dropped.
 *
 * With --stall, one inside an interval keeps the pair of stacks it ran in,
 * in the thread's store for that interval (profiles, keyed as its other
 * values). A short interval's samples are dropped when the thread's next
 * interval opens the store again, so kdelay reads only a stall's.
 *
 * In a sample, each of the window's samples goes to user space with its
 * stack copy (--stack-copy), to be unwound as it comes; one without a copy
 * is counted here, by thread and pair of stacks (window_profile). */
#ifndef KD_DELAY_PROFILE_BPF_H
#define KD_DELAY_PROFILE_BPF_H

#include "delay/core.bpf.h"
#include "delay/stack_copy.bpf.h"

#if PROFILE_HZ && !WITH_STACK_TRACES
#error "--profile needs the stack_traces map"
#endif

#if PROFILE_HZ
/* This CPU's sample before: the CPU clock, and when (bpf_ktime_get_ns);
 * and when a target's thread last got this CPU. */
struct kd_profile_clock {
    __u64 counter;
    __u64 at_ns;
    __u64 switched_in_ns;
};
BPF_PERCPU_ARRAY(profile_clock, struct kd_profile_clock, 1);

/* A target's thread gets this CPU at now. */
static __always_inline void profile_switched_in(__u64 now)
{
    int zero = 0;
    struct kd_profile_clock *c = profile_clock.lookup(&zero);
    if (c)
        c->switched_in_ns = now;
}

/* The CPU time this sample stands for, in us: the CPU clock since this
 * CPU's sample before (a timer that fired late fires once for the periods
 * it missed), for a thread that has run since before that sample. */
static __always_inline __u32 profile_elapsed_us(void *ctx)
{
    int zero = 0;
    struct kd_profile_clock *c = profile_clock.lookup(&zero);
    struct bpf_perf_event_value now = {};
    __u64 since = 1000000000ull / PROFILE_HZ;  /* one period, when unknown */
    if (c && bpf_perf_prog_read_value(ctx, &now, sizeof(now)) == 0) {
        __u64 now_ns = bpf_ktime_get_ns();
        if (c->counter && now.counter > c->counter)
            since = now.counter - c->counter;
        /* A thread that got the CPU after that sample shared the time
         * since with what ran before it (or with an idle CPU, which takes
         * no samples): its sample stands for one period, as a sample on
         * time does. */
        if (c->switched_in_ns > c->at_ns && since > 1000000000ull / PROFILE_HZ)
            since = 1000000000ull / PROFILE_HZ;
        c->counter = now.counter;
        c->at_ns = now_ns;
    }
    return since / 1000 > 0xffffffffull ? 0xffffffff : since / 1000;
}
#else
static __always_inline void profile_switched_in(__u64 now) {}
#endif

#if PROFILE_HZ && STALL
BPF_HASH(profiles, __u32, struct kd_profile, TIMELINE_THREADS);
BPF_ARRAY(profile_empty, struct kd_profile, 1);  /* never written: a new value's zeros */

/* Thread tid begins its interval gen: its samples start anew. The store's
 * samples are not cleared: only the first `taken` are read. */
static __always_inline void profile_open(__u32 tid, kd_gen_t gen)
{
    __u32 key = interval_tid(tid, gen);
    struct kd_profile *p = profiles.lookup(&key);
    if (!p) {
        int zero = 0;
        struct kd_profile *empty = profile_empty.lookup(&zero);
        if (!empty)
            return;
        p = profiles.lookup_or_try_init(&key, empty);
        if (!p) {
            note_full(KD_MAP_PROFILES);
            return;
        }
    }
    p->gen = gen;
    p->taken = 0;
}

static __always_inline void profile_forget(__u32 key)
{
    profiles.delete(&key);
}

/* ctx: the perf event's registers, which the stack walks start from. */
int kd_profile_sample(void *ctx)
{
    __u32 elapsed_us = profile_elapsed_us(ctx);
    __u64 id = bpf_get_current_pid_tgid();
    if (!is_target_current(id >> 32))
        return 0;
    __u32 tid = (__u32)id;
    struct kd_thread *t = thread_find(tid);
    kd_gen_t gen = recording_gen(t);
    if (!gen || !t)
        return 0;
    __u32 key = interval_tid(tid, gen);
    struct kd_profile *p = profiles.lookup(&key);
    if (!p || p->gen != gen)
        return 0;
    __u32 at = p->taken;
    if (at >= KD_PROFILE_SAMPLES) {
        count(KD_STAT_PROFILE_LOST);
        return 0;
    }
    p->taken = at + 1;
    struct kd_profile_sample *s = &p->samples[at & (KD_PROFILE_SAMPLES - 1)];
    s->at_us = (bpf_ktime_get_ns() - t->interval_start) / 1000;
    s->cpu_us = elapsed_us;
    s->kernel_stack = stack_traces.get_stackid(ctx, 0);
    /* The user stack's copy, unwound in user space; the frame-pointer walk
     * only where there is none, so that a sample takes one slot of
     * stack_traces, not two. */
    s->user_stack = stack_copy_sample(ctx, tid, gen, at, s->kernel_stack, elapsed_us)
                        ? KD_STACK_COPIED
                        : stack_traces.get_stackid(ctx, BPF_F_USER_STACK);
    return 0;
}
#else
static __always_inline void profile_open(__u32 tid, kd_gen_t gen) {}
static __always_inline void profile_forget(__u32 key) {}
#endif

#if PROFILE_HZ && !STALL
BPF_HASH(window_profile, struct kd_window_stacks, struct kd_window_tally, WINDOW_PROFILE_STACKS);

/* ctx: the perf event's registers, which the stack walks start from. */
int kd_profile_sample(void *ctx)
{
    __u32 elapsed_us = profile_elapsed_us(ctx);
    __u64 id = bpf_get_current_pid_tgid();
    if (!target_capturing(id))
        return 0;
    __u32 tid = (__u32)id;
    int kernel_stack = stack_traces.get_stackid(ctx, 0);
    if (stack_copy_sample(ctx, tid, 0, KD_COPY_OF_WINDOW, kernel_stack, elapsed_us))
        return 0;
    struct kd_window_stacks key = {tid, id >> 32, kernel_stack, stack_traces.get_stackid(ctx, BPF_F_USER_STACK)};
    struct kd_window_tally zero = {};
    struct kd_window_tally *t = window_profile.lookup_or_try_init(&key, &zero);
    if (!t) {
        note_full(KD_MAP_WINDOW_PROFILE);
        return 0;
    }
    __sync_fetch_and_add(&t->count, 1);
    __sync_fetch_and_add(&t->cpu_us, elapsed_us);
    return 0;
}

/* A target's thread got a CPU: after the timeline's and the budget's
 * steps, in a program of its own (sched_switch is near the verifier's
 * limit). With --stall, the stall step does it. */
BTF_TRACEPOINT_STEP(sched_switch, profile)
{
    if (!capturing())
        return 0;
    void *next = (void *)ctx->args[2];
    __u32 next_tid;
    if (is_target_task(next, task_ids(next, &next_tid)))
        profile_switched_in(bpf_ktime_get_ns());
    return 0;
}
#endif

#endif
