/* Layouts shared by the kernel side (delay.bpf.c) and the user side
 * (src/delay/collector.cpp). Plain C with fixed-width types only. */
#ifndef KDELAY_DELAY_ABI_H
#define KDELAY_DELAY_ABI_H

#define KD_COMM_LEN 16
#define KD_IRQ_NAME_LEN 32

/* capture[0].state. Time mode: userspace moves IDLE -> CAPTURING ->
 * DUMPING -> IDLE. With a start trigger userspace sets ARMED and the trigger
 * moves ARMED -> CAPTURING; a stop trigger moves CAPTURING -> DUMPING. */
#define KD_IDLE 0
#define KD_CAPTURING 1
#define KD_DUMPING 2
#define KD_ARMED 3

struct kd_capture {
    __u32 state;
    __u32 pad;
    /* CLOCK_MONOTONIC at the start of the sample: an in-flight timestamp
     * older than this belongs to an earlier sample and is ignored. */
    __u64 start_ns;
    __u64 start_trigger_ns;  /* when the start trigger fired, 0 if not */
    __u64 stop_trigger_ns;   /* when the stop trigger fired, 0 if not */
};

/* Counters in the stats array. */
#define KD_STAT_TRIGGER_MISS 0  /* start trigger fired while not armed */
#define KD_STAT_EVENTS_DROPPED 1  /* ring buffer full */
#define KD_STAT_COUNT 2

/* A syscall event on the ring buffer (--syscall-events). */
struct kd_event {
    __u64 entry_ns;
    __u64 exit_ns;
    __u32 tid;
    __u32 nr;
    __s32 user_stack;    /* stack_traces ids; < 0 when lost or disabled */
    __s32 kernel_stack;
    char comm[KD_COMM_LEN];
};

/* Index into the map_full counters, one per map that can run out of room. */
#define KD_MAP_THREADS 0
#define KD_MAP_SYSCALLS 1
#define KD_MAP_HARDIRQS 2
#define KD_MAP_SOFTIRQS 3
#define KD_MAP_BLOCKIO 4
#define KD_MAP_HIST 5
#define KD_MAP_COUNT 6

/* --histogram: log2 latency histograms. Slot s counts values in
 * [(1 << s) >> 1, (1 << s) - 1], as BCC's bpf_log2l() and its tools do. */
#define KD_HIST_SYSCALL 0  /* id: syscall number */
#define KD_HIST_RUN 1
#define KD_HIST_READY 2
#define KD_HIST_HARDIRQ 3  /* every handled hard IRQ of the thread */
#define KD_HIST_SOFTIRQ 4  /* id: vector */
#define KD_HIST_SLOTS 65

struct kd_hist_key {
    __u32 tid;
    __u32 kind;
    __u32 id;
    __u32 slot;
};

struct kd_stat {
    __u64 count;
    __u64 total_ns;
    __u64 min_ns;
    __u64 max_ns;
};

/* One per thread of the target: in-flight timestamps plus the per-thread
 * sections of the report. */
struct kd_thread {
    char comm[KD_COMM_LEN];
    __u64 run_start;
    __u64 ready_start;
    __u64 stop_start;
    __u64 poll_exit;
    struct kd_stat run;
    struct kd_stat ready;
    struct kd_stat stopped;
    struct kd_stat long_poll;
};

struct kd_syscall_key {
    __u32 tid;
    __u32 nr;
};

/* A thread is in one syscall at a time, so the in-flight entry time of a
 * syscall that blocked can sit beside the aggregate. */
struct kd_syscall {
    struct kd_stat stat;
    __u64 start;
};

/* Per CPU: the syscall that last returned there without leaving the CPU,
 * with the calls of its current run, not yet added to the syscalls hash. */
struct kd_recent {
    __u32 tid;
    __u32 nr;
    struct kd_stat stat;
};

struct kd_hardirq_key {
    __u32 tid;
    char name[KD_IRQ_NAME_LEN];
};

struct kd_softirq_key {
    __u32 tid;
    __u32 vec;
};

/* Per-CPU: an interrupt handler runs to completion on the CPU it entered. */
struct kd_irq_slot {
    __u64 start;
    __u64 what;  /* hard IRQ: its struct irqaction; soft IRQ: the vector */
};

/* Per thread, disk and operation in the kernel-delay report. */
struct kd_blockio_key {
    __u32 tid;
    __u32 dev;
    __u32 op;
    __u32 pad;
};

struct kd_blockio {
    struct kd_stat stat;  /* start -> completion */
    __u64 bytes;
};

#endif
