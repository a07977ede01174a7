/* ---- --stack-copy BYTES: user stacks for user space to unwind ----
 *
 * A kept sample's (--profile) or a kept wait's (--wait-stacks) user
 * registers and top of user stack go on the stack_copies ring buffer, and
 * user space unwinds a stall's (in a sample: each as it comes) by the
 * binaries' .eh_frame: a frame-pointer walk stops at the first function
 * built without them. */
#ifndef KD_DELAY_STACK_COPY_BPF_H
#define KD_DELAY_STACK_COPY_BPF_H

#include "delay/core.bpf.h"

#if STACK_COPY_BYTES
BPF_RINGBUF_OUTPUT(stack_copies, STACK_COPY_RINGBUF_PAGES);
BPF_PERCPU_ARRAY(stack_copies_sent, __u32, 1);

static __always_inline struct kd_stack_copy *stack_copy_reserve(__u32 tid, kd_gen_t gen, __u32 sample,
                                                                __u64 wait_start)
{
    struct kd_stack_copy *c = stack_copies.ringbuf_reserve(sizeof(struct kd_stack_copy) + STACK_COPY_BYTES);
    if (!c) {
        count(KD_STAT_STACK_COPIES_LOST);
        return 0;
    }
    c->tid = tid;
    c->sample = sample;
    c->gen = gen;
    c->wait_start = wait_start;
    c->base = 0;
    c->bytes = 0;
    c->regs_bytes = PT_REGS_SIZE;
    c->tgid = bpf_get_current_pid_tgid() >> 32;
    c->kernel_stack = -1;
    c->cpu_us = 0;
    c->pad = 0;
    return c;
}

/* c's registers are the current thread's user registers (user: they are):
 * the stack from their sp goes with them. A page that is not there ends
 * the copy. */
static __always_inline void stack_copy_send(struct kd_stack_copy *c, int user)
{
    if (user) {
        c->base = c->regs[PT_REGS_SP_OFF / 8] & ~(__u64)(KD_STACK_COPY_CHUNK - 1);
        __u8 *data = (__u8 *)(c + 1);
        for (int i = 0; i < STACK_COPY_BYTES / KD_STACK_COPY_CHUNK; i++) {
            if (bpf_probe_read_user(data + i * KD_STACK_COPY_CHUNK, KD_STACK_COPY_CHUNK,
                                    (void *)(c->base + i * KD_STACK_COPY_CHUNK)))
                break;
            c->bytes += KD_STACK_COPY_CHUNK;
        }
    }
    /* User space is woken at every 16th copy of a CPU, which the ring's
     * 32 a CPU leave room for, not at each. */
    int zero = 0;
    __u32 *sent = stack_copies_sent.lookup(&zero);
    __u64 wake = sent && (++*sent & 15) == 0 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
    stack_copies.ringbuf_submit(c, wake);
}

/* saved: the user registers the kernel saved at the current thread's
 * entry (its pt_regs). Whether they are user registers. */
static __always_inline int saved_user_regs(void *saved, __u64 *regs)
{
    if (!saved || bpf_probe_read_kernel(regs, PT_REGS_SIZE, saved))
        return 0;
    return (regs[PT_REGS_CS_OFF / 8] & 3) != 0;
}

/* Sample `sample` of thread tid's interval gen (KD_COPY_OF_WINDOW: of the
 * report's window), which ran in kernel_stack and stands for cpu_us (ctx:
 * the perf event's registers); 0 when the ring had no room for it. Its
 * user registers are the sample's own when it interrupted user code, else
 * those the kernel saved at its entry (the top of its kernel stack). */
static __always_inline int stack_copy_sample(void *ctx, __u32 tid, kd_gen_t gen, __u32 sample, int kernel_stack,
                                             __u32 cpu_us)
{
    struct kd_stack_copy *c = stack_copy_reserve(tid, gen, sample, 0);
    if (!c)
        return 0;
    c->kernel_stack = kernel_stack;
    c->cpu_us = cpu_us;
    if (*(__u64 *)((char *)ctx + PT_REGS_CS_OFF) & 3) {
#pragma unroll
        for (int i = 0; i < PT_REGS_SIZE / 8; i++)
            c->regs[i] = ((__u64 *)ctx)[i];
        stack_copy_send(c, 1);
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
    stack_copy_send(c, saved_user_regs(saved, c->regs));
    return 1;
}

/* The kept wait of thread tid's interval gen that began at wait_start, as
 * its syscall returns (regs: the syscall's pt_regs): the user stack is as
 * it was while the thread waited. */
static __always_inline void stack_copy_wait(void *regs, __u32 tid, kd_gen_t gen, __u64 wait_start)
{
    struct kd_stack_copy *c = stack_copy_reserve(tid, gen, KD_COPY_OF_WAIT, wait_start);
    if (c)
        stack_copy_send(c, saved_user_regs(regs, c->regs));
}
#else
static __always_inline int stack_copy_sample(void *ctx, __u32 tid, kd_gen_t gen, __u32 sample, int kernel_stack,
                                             __u32 cpu_us)
{
    return 0;
}
static __always_inline void stack_copy_wait(void *regs, __u32 tid, kd_gen_t gen, __u64 wait_start) {}
#endif

#endif
