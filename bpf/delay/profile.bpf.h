/* ---- --profile HZ with --stall: where an interval ran ----
 *
 * A CPU-clock event on every CPU runs kd_profile_sample each 1/HZ s of CPU
 * time. Each reads the CPU clock, for the time it stands for. A sample that
 * finds no target thread inside an interval costs the thread's look-up and
 * is dropped; one inside an interval keeps the pair of stacks it ran in,
 * in the thread's store for that interval (profiles, keyed as its other
 * values). A short interval's samples are dropped when
 * the thread's next interval opens the store again, so kdelay reads only a
 * stall's. */
#ifndef KD_DELAY_PROFILE_BPF_H
#define KD_DELAY_PROFILE_BPF_H

#include "delay/core.bpf.h"

#if PROFILE_HZ && !WITH_STACK_TRACES
#error "--profile needs the stack_traces map"
#endif

#if PROFILE_HZ
BPF_HASH(profiles, __u32, struct kd_profile, TIMELINE_THREADS);
BPF_ARRAY(profile_empty, struct kd_profile, 1);  /* never written: a new value's zeros */
/* This CPU's sample before: the CPU clock, and when (bpf_ktime_get_ns);
 * and when a target's thread last got this CPU. */
struct kd_profile_clock {
    __u64 counter;
    __u64 at_ns;
    __u64 switched_in_ns;
};
BPF_PERCPU_ARRAY(profile_clock, struct kd_profile_clock, 1);

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
 * it missed), but no more than since the thread got the CPU, if it got it
 * after that sample (an idle CPU takes no samples). */
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
        if (c->switched_in_ns > c->at_ns && now_ns > c->switched_in_ns && now_ns - c->switched_in_ns < since)
            since = now_ns - c->switched_in_ns;
        c->counter = now.counter;
        c->at_ns = now_ns;
    }
    return since / 1000 > 0xffffffffull ? 0xffffffff : since / 1000;
}

#if STACK_COPY_BYTES
BPF_RINGBUF_OUTPUT(stack_copies, STACK_COPY_RINGBUF_PAGES);
BPF_PERCPU_ARRAY(stack_copies_sent, __u32, 1);

/* The user registers of the current thread, into regs: the sample's own
 * when it interrupted user code, else those the kernel saved at its entry
 * (the top of its kernel stack). 0 when they are not user registers. */
static __always_inline int user_regs(void *ctx, __u64 *regs)
{
    if (*(__u64 *)((char *)ctx + PT_REGS_CS_OFF) & 3) {
#pragma unroll
        for (int i = 0; i < PT_REGS_SIZE / 8; i++)
            regs[i] = ((__u64 *)ctx)[i];
        return 1;
    }
    void *saved = NULL;
    if (TASK_PT_REGS) {
        saved = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
    } else {
        /* Before 5.15: where task_pt_regs() finds them. */
        void *stack = NULL;
        bpf_probe_read_kernel(&stack, sizeof(stack), (char *)bpf_get_current_task() + TASK_STACK_OFF);
        if (stack)
            saved = (char *)stack + THREAD_SIZE - PT_REGS_SIZE;
    }
    if (!saved || bpf_probe_read_kernel(regs, PT_REGS_SIZE, saved))
        return 0;
    return (regs[PT_REGS_CS_OFF / 8] & 3) != 0;
}

/* Sample `sample` of thread tid's interval gen: its user registers and the
 * top of its user stack go to user space, which unwinds them if the
 * interval is a stall. A page that is not there ends the copy. */
static __always_inline void copy_user_stack(void *ctx, __u32 tid, kd_gen_t gen, __u32 sample)
{
    struct kd_stack_copy *c = stack_copies.ringbuf_reserve(sizeof(struct kd_stack_copy) + STACK_COPY_BYTES);
    if (!c) {
        count(KD_STAT_STACK_COPIES_LOST);
        return;
    }
    c->tid = tid;
    c->sample = sample;
    c->gen = gen;
    c->bytes = 0;
    c->regs_bytes = PT_REGS_SIZE;
    if (!user_regs(ctx, c->regs)) {
        c->base = 0;
        stack_copies.ringbuf_submit(c, BPF_RB_NO_WAKEUP);
        return;
    }
    c->base = c->regs[PT_REGS_SP_OFF / 8] & ~(__u64)(KD_STACK_COPY_CHUNK - 1);
    __u8 *data = (__u8 *)(c + 1);
    for (int i = 0; i < STACK_COPY_BYTES / KD_STACK_COPY_CHUNK; i++) {
        if (bpf_probe_read_user(data + i * KD_STACK_COPY_CHUNK, KD_STACK_COPY_CHUNK,
                                (void *)(c->base + i * KD_STACK_COPY_CHUNK)))
            break;
        c->bytes += KD_STACK_COPY_CHUNK;
    }
    /* User space is woken at every 16th copy of a CPU, which the ring's
     * 32 a CPU leave room for, not at each sample. */
    int zero = 0;
    __u32 *sent = stack_copies_sent.lookup(&zero);
    __u64 wake = sent && (++*sent & 15) == 0 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
    stack_copies.ringbuf_submit(c, wake);
}
#else
static __always_inline void copy_user_stack(void *ctx, __u32 tid, kd_gen_t gen, __u32 sample) {}
#endif

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
    s->user_stack = stack_traces.get_stackid(ctx, BPF_F_USER_STACK);
    copy_user_stack(ctx, tid, gen, at);
    return 0;
}
#else
static __always_inline void profile_open(__u32 tid, kd_gen_t gen) {}
static __always_inline void profile_forget(__u32 key) {}
static __always_inline void profile_switched_in(__u64 now) {}
#endif

#endif
