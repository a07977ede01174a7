/* Layouts shared by the kernel side (delay.bpf.c) and the user side
 * (src/delay/collector.cpp). Plain C with fixed-width types only. */
#ifndef KDELAY_DELAY_ABI_H
#define KDELAY_DELAY_ABI_H

#define KD_COMM_LEN 16

/* --stall: the number of a thread's interval (kd_thread.gen). 64 bits, and
 * a new entry's numbers start at the clock, so that neither a wrap nor a
 * reused tid can give a value of an older interval the current number. */
typedef __u64 kd_gen_t;
#define KD_IRQ_NAME_LEN 32

/* --budget: a thread of the target as the task iterator (bpf_iter__task)
 * finds it when kdelay reads it, just after a window closed, for the
 * threads that showed no event in it: in which state, and whether on a
 * CPU or waiting for one (since waiting_ns before at_ns, CLOCK_MONOTONIC). */
struct kd_task_now {
    __u32 tid;
    __u32 state;   /* task_struct.__state: 0 running or runnable */
    __u32 on_cpu;
    __u32 pad;
    __u64 waiting_ns;
    __u64 at_ns;
    /* Of waiting_ns: while its group's run queue was throttled by a CPU
     * bandwidth limit (since the wait began on this run queue). */
    __u64 throttled_ns;
};

/* --budget: of a wait for a CPU that ended at `at`, `waited` long by the
 * kernel's account, the part before the window that opened at `start`. A
 * switch-in dated before the opening (a run-queue clock left stale by
 * RQCF_REQ_SKIP) ended a wait that began before it: all of it. */
static inline __u64 kd_wait_before_window(__u64 at, __u64 start, __u64 waited)
{
    if (at <= start)
        return waited;
    return waited > at - start ? waited - (at - start) : 0;
}

/* --budget: how long a group run queue (struct cfs_rq) has been throttled
 * by its CPU bandwidth limit or an ancestor's, in all, at its run queue's
 * clock `clock`: the throttles ended (`ended`) and the one under way since
 * `since` while `count` (throttle_count) is not 0. */
static inline __u64 kd_throttled_total(__u64 ended, __u64 since, __u32 count, __u64 clock)
{
    return ended + (count && since && clock > since ? clock - since : 0);
}

/* What a kernel counter grew by from `before` to `after`, as a part of a
 * wait or a run `whole` long: never more than the whole. */
static inline __u64 kd_part_of(__u64 before, __u64 after, __u64 whole)
{
    __u64 grew = after > before ? after - before : 0;
    return grew < whole ? grew : whole;
}

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
#define KD_STAT_STALLS_DROPPED 2  /* --stall: the stalls ring buffer was full */
/* --stall: stalls that began while two stalls of their thread were still
 * unread: timed, but their values not kept (both sets of keys were held),
 * so not reported. */
#define KD_STAT_STALLS_UNWATCHED 3
/* --stall: exits of threads whose values kdelay could not be told of (the
 * exits ring buffer was full): their values stay in the maps. */
#define KD_STAT_EXITS_DROPPED 4
/* --profile: CPU-clock samples of an interval taken after its store was full. */
#define KD_STAT_PROFILE_LOST 5
/* --stack-copy: kept samples whose stack copy found the stack_copies ring
 * buffer full (their user stack is the frame-pointer walk's). */
#define KD_STAT_STACK_COPIES_LOST 6
#define KD_STAT_COUNT 7

/* A syscall event on the ring buffer (--syscall-events). */
struct kd_event {
    __u64 entry_ns;
    __u64 exit_ns;
    __u32 tid;
    __u32 nr;
    __s32 user_stack;    /* stack_traces ids; < 0 when lost or disabled */
    __s32 kernel_stack;
    char comm[KD_COMM_LEN];
    /* --budget: who woke the thread inside this syscall, last; else
     * waker_kind is KD_WAKER_NONE. */
    __u32 waker_kind;
    __u32 waker_tid;
    __u32 waker_pid;
    __u32 tgid;  /* the thread's process */
    char waker_comm[KD_COMM_LEN];
};

/* Index into the map_full counters, one per map that can run out of room. */
#define KD_MAP_THREADS 0
#define KD_MAP_SYSCALLS 1
#define KD_MAP_HARDIRQS 2
#define KD_MAP_SOFTIRQS 3
#define KD_MAP_BLOCKIO 4
#define KD_MAP_HIST 5
#define KD_MAP_UPCALLS 6
#define KD_MAP_WAKERS 7
#define KD_MAP_BLAME 8
#define KD_MAP_TIMELINES 9
#define KD_MAP_WAIT_STACKS 10
#define KD_MAP_PROFILES 11
#define KD_MAP_WINDOW_PROFILE 12
/* The plug-in sections' counters follow (src/delay/section.h): the program
 * defines their macros, and sizes map_full for all. */
#define KD_MAP_CORE_COUNT 13

/* Open vSwitch upcalls, machine-wide: calls of ovs_dp_upcall() per CPU and
 * return code (0, or -errno). At the tracepoint the code is unknown. */
#define KD_UPCALL_RESULT_UNKNOWN 1
struct kd_upcall_key {
    __u32 cpu;
    __s32 ret;
};

/* --histogram: log2 latency histograms. Slot s counts values in
 * [(1 << s) >> 1, (1 << s) - 1], as BCC's bpf_log2l() and its tools do. */
#define KD_HIST_SYSCALL 0  /* id: syscall number */
#define KD_HIST_RUN 1
#define KD_HIST_READY 2
#define KD_HIST_HARDIRQ 3  /* every handled hard IRQ of the thread */
#define KD_HIST_SOFTIRQ 4  /* id: vector */
#define KD_HIST_BLOCKED 5  /* --budget: id: the syscall slept in */
/* The plug-in sections' kinds follow (src/delay/section.h). */
#define KD_HIST_CORE_KINDS 6
#define KD_HIST_SLOTS 65

/* --histogram: a thread's RUN and READY histograms, in thread_hists at the
 * index of its slot of thread_slots (a thread in the threads hash uses the
 * hist hash instead): a value there is an increment, not a hash update. */
#define KD_THREAD_HISTS 2  /* KD_HIST_RUN, KD_HIST_READY */
struct kd_thread_hists {
    __u64 count[KD_THREAD_HISTS][KD_HIST_SLOTS];
};

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
    /* --stall: the interval of its thread (kd_thread.gen) it was written in;
     * an entry of an earlier one is emptied before it is added to. 0 in a
     * sample. */
    kd_gen_t gen;
};

/* --stall: the tid in the key of a thread's map value carries the parity
 * of the value's interval in this bit, so that the thread's intervals are
 * recorded beside a stall that kdelay has not read yet. Tids stay below
 * 2^22 (PID_MAX_LIMIT); a sample never sets it. */
#define KD_KEY_INTERVAL_BIT 0x80000000u
#define KD_KEY_TID(tid, gen) ((gen) & 1 ? (tid) | KD_KEY_INTERVAL_BIT : (tid))
#define KD_KEY_THREAD(key_tid) ((key_tid) & ~KD_KEY_INTERVAL_BIT)

/* --budget (and JSON): where a thread's time in the window went. The
 * thread is in one state from `since` (0: from the window's start, as
 * nothing was seen of it before); each change adds the time spent to that
 * state's total. Time blocked goes to the syscall the thread blocked in
 * (kd_syscall.blocked_ns), to "outside any syscall", or, for a syscall
 * entered before the window, to pending_ns until its exit names it. */
#define KD_B_UNKNOWN 0
#define KD_B_RUNNING 1
#define KD_B_READY 2
#define KD_B_BLOCKED 3
#define KD_B_STOPPED 4
#define KD_B_DEAD 5
#define KD_B_NO_SYSCALL 0xffffffffu  /* blocked_nr: outside any syscall */
#define KD_B_SYSCALL_UNKNOWN 0xfffffffeu  /* blocked_nr: entered before the window */

struct kd_budget {
    __u32 state;
    __u32 blocked_nr;   /* while BLOCKED */
    __u64 since;
    __u32 in_syscall;   /* nr + 1 of a syscall that blocked and has not returned; 0 if none */
    __u32 pad;
    __u64 running_ns;
    __u64 ready_ns;
    /* Of ready_ns: while the thread's group run queue was throttled by a
     * CPU bandwidth limit. Of running_ns: stolen from the vCPU by the
     * hypervisor (the paravirt steal clock). */
    __u64 throttled_ns;
    __u64 steal_ns;
    __u64 stopped_ns;
    __u64 blocked_nosys_ns;
    __u64 pending_ns;
    __u64 born_ns;      /* 0: alive when the window began */
    __u64 died_ns;      /* 0: alive when it ended */
    /* A thread that exited and a new one with its tid, in one window: the
     * time between them (the tid's budget is of both). */
    __u64 between_lives_ns;
    __u64 migrated_ns;  /* READY: when it last moved to another CPU's queue */
    /* READY when the window opened: how long it had waited by then (not
     * part of ready_ns; the kernel's run_delay counts it when the wait ends) */
    __u64 ready_before_ns;
    __u64 woken_ns;     /* its last wakeup from BLOCKED, and by whom */
    __u32 waker_kind;
    __u32 waker_tid;
    __u32 waker_pid;
    __u32 pad2;
    char waker_comm[KD_COMM_LEN];
};

/* One per thread of the target: in-flight timestamps plus the per-thread
 * sections of the report. */
/* --budget: who ended a thread's blocked time. A wakeup made in interrupt
 * context is the interrupt's, not the interrupted task's. */
#define KD_WAKER_TASK 0
#define KD_WAKER_HARDIRQ 1
#define KD_WAKER_SOFTIRQ 2
#define KD_WAKER_TIMER 3  /* an hrtimer expiring in hard IRQ context */
#define KD_WAKER_NONE 255

struct kd_waker_key {
    __u32 tid;         /* the woken thread */
    __u32 kind;
    __u32 waker_tid;   /* KD_WAKER_TASK: the waker's tid; else 0 */
    __u32 pad;
};

struct kd_waker {
    __u64 count;
    __u64 blocked_ns;  /* the blocked time these wakeups ended */
    kd_gen_t gen;      /* as kd_stat.gen */
    __u32 tgid;        /* the waker's process */
    __u32 pad;
    char comm[KD_COMM_LEN];
};

/* --budget: who held the CPU while a thread of the target waited for it.
 * Each CPU keeps its last KD_HOLDERS holders (only while some thread of the
 * target waits, anywhere); when the thread gets the CPU, its wait is split
 * over the holders it overlaps, their interrupts, and "others" (holders too
 * old to be kept, time on another CPU before a migration, or before the
 * window). */
#define KD_HOLDERS 8
#define KD_BLAME_TASK 0
#define KD_BLAME_IRQ 1
#define KD_BLAME_OTHERS 2

struct kd_holder {
    __u64 start;   /* 0: since before anything was recorded */
    __u64 end;
    __u64 irq_ns;  /* hard and soft IRQ time while it held the CPU */
    __u32 tid;
    __u32 tgid;
    char comm[KD_COMM_LEN];
};

struct kd_cpu_holders {
    __u64 head;        /* next slot to write, modulo KD_HOLDERS */
    __u64 since;       /* the current holder's start; 0 if unknown */
    __u64 irq_ns;      /* the current holder's IRQ time so far */
    __u64 hard_start;  /* the hard IRQ in progress, 0 if none timed */
    __u64 soft_start;  /* the softirq in progress, 0 if none timed */
    struct kd_holder ring[KD_HOLDERS];
};

struct kd_blame_key {
    __u32 tid;         /* the waiting thread */
    __u32 kind;
    __u32 holder;      /* KD_BLAME_TASK: the holder's tid */
    __u32 pad;
};

struct kd_blame {
    __u64 ns;
    kd_gen_t gen;  /* as kd_stat.gen */
    __u32 tgid;
    __u32 pad;
    char comm[KD_COMM_LEN];
};

/* Per CPU: whether a hard IRQ handler, a softirq or an hrtimer runs now. */
struct kd_irq_context {
    __u32 hard;
    __u32 soft;
    __u32 timer;
    __u32 pad;
};

/* --stall: the call site of a poll-family syscall is the function of the
 * program that called poll() (or epoll_wait(), ...): the first word on the
 * user stack, within KD_SITE_WORDS words of its pointer, that is the
 * return address of one of the program's calls of a poll-family function
 * (poll_sites, which kdelay finds in the program's code and gives the
 * function of, from its call frame information), as that function's
 * start. Only such a return address passes, so what earlier calls left on
 * the stack below it does not; and two calls in one function (a compiler's
 * copies of a call with timeout 0 and with a timeout) are one site. A
 * thread's intervals are bounded by calls at the sites where it blocked,
 * up to KD_LOOP_SITES of them, so that a call that never blocks (Open
 * vSwitch's latch_is_set(), an epoll_wait(.., 0) between batches) does not
 * split one. kdelay reads a process's sites from its ELF file when the
 * kernel side first asks (sites_wanted), into poll_programs and poll_sites. */
#define KD_LOOP_SITES 4
#define KD_SITE_WORDS 32
#define KD_POLL_SITES 64  /* per program, at the most */
#define KD_SITE_PROCESSES 1024
struct kd_poll_program {
    __u32 sites;  /* 0: none known (every call is a loop's) */
    __u32 pad;
};
struct kd_site_key {
    __u32 tgid;
    __u32 pad;
    __u64 ret;  /* the return address */
};

/* --stall with --wait-stacks N (--timeline: 5): each interval keeps its N
 * longest waits in a syscall, with the stacks where they began, in a map
 * of their own (wait_stacks, keyed as the interval's other values), not in
 * the thread's entry, which every hook copies and clears. */
#define KD_LONGEST_WAITS 8  /* N at the most; a power of two */
struct kd_wait {
    __u64 start;
    __u64 ns;      /* 0: an empty place */
    __u32 nr;      /* the syscall it blocked in (kd_budget.blocked_nr) */
    __s32 kernel_stack;  /* stack_traces ids; < 0 when lost */
    __s32 user_stack;
    __u32 pad;
};
struct kd_wait_stacks {
    kd_gen_t gen;
    /* Where its current wait off the CPU began (wait_at: 0 none). */
    __u64 wait_at;
    __s32 wait_kernel_stack;
    __s32 wait_user_stack;
    /* --stack-copy: a wait of the syscall in progress was kept, the last
     * one beginning at copy_wait (0: none): its stack is copied as the
     * syscall returns, when the user stack is as it was in the wait. */
    __u64 copy_wait;
    struct kd_wait longest[KD_LONGEST_WAITS];
};

/* --stall with --profile HZ: the CPU-clock samples that found the thread
 * running inside its interval, each the pair of stack_traces ids of where
 * it ran, in a map of their own keyed as the interval's other values. At
 * 99 Hz the store holds a 10 s interval's samples. */
#define KD_PROFILE_SAMPLES 1024  /* a power of two */
/* user_stack: the sample's user stack went to user space as a copy. */
#define KD_STACK_COPIED (-1000)
struct kd_profile_sample {
    __s32 kernel_stack;  /* stack_traces ids; < 0 when lost or none */
    __s32 user_stack;    /* or KD_STACK_COPIED */
    __u32 at_us;  /* since the interval began */
    /* The CPU clock since this CPU's sample before: one period, or more
     * where the timer fired late (a host that held the guest's CPU) or was
     * throttled, so that the samples' sum is the CPU time they stand for. */
    __u32 cpu_us;
};
struct kd_profile {
    kd_gen_t gen;
    __u32 taken;  /* samples of the interval; past KD_PROFILE_SAMPLES, lost */
    __u32 pad;
    struct kd_profile_sample samples[KD_PROFILE_SAMPLES];
};

/* --profile HZ in a sample (no --stall): the window's samples whose user
 * stack was not copied, counted in the kernel by thread and stacks. */
struct kd_window_stacks {
    __u32 tid;
    __u32 tgid;
    __s32 kernel_stack;
    __s32 user_stack;
};
struct kd_window_tally {
    __u64 count;
    __u64 cpu_us;
};

/* --stack-copy BYTES: the user registers and the top of the user stack of
 * a kept sample (--profile) or of a kept wait (--wait-stacks), on the
 * stack_copies ring buffer, for user space to unwind with the binaries'
 * .eh_frame (frame pointers reach no further than the first function built
 * without them). Followed by `bytes` bytes of the stack from `base`: sp
 * rounded down to KD_STACK_COPY_CHUNK, up to where a page was not there or
 * STACK_COPY_BYTES. */
#define KD_STACK_COPY_CHUNK 512
#define KD_USER_REGS_WORDS 32  /* room for the kernel's struct pt_regs */
#define KD_COPY_OF_WAIT 0xffffffffu
/* A sample's copy, in a sample of the report (no --stall): gen is 0. */
#define KD_COPY_OF_WINDOW 0xfffffffeu
struct kd_stack_copy {
    __u32 tid;
    /* Its index in the interval's kd_profile.samples; KD_COPY_OF_WAIT: the
     * kept wait that began at wait_start, copied as its syscall returned;
     * KD_COPY_OF_WINDOW: a sample of the report's window. */
    __u32 sample;
    kd_gen_t gen;
    __u64 wait_start;
    __u64 base;
    __u32 bytes;
    __u32 regs_bytes;  /* of regs: the kernel's sizeof(struct pt_regs) */
    __u32 tgid;        /* the thread's process */
    /* A sample's kernel stack (stack_traces id) and the CPU time it stands
     * for, as kd_profile_sample has them. */
    __s32 kernel_stack;
    __u32 cpu_us;
    __u32 pad;
    __u64 regs[KD_USER_REGS_WORDS];  /* the user pt_regs, as the kernel lays them out */
};

struct kd_thread {
    char comm[KD_COMM_LEN];
    __u64 tid;  /* 0: a free slot of thread_slots; 64 bits for the CAS that claims it */
    /* The syscall it blocked in, entered at sys_start (0: none): moved here
     * from the CPU's in-flight slot when the thread left the CPU. */
    __u64 sys_start;
    __u32 sys_nr;
    __u32 wait_known;  /* wait_seen is set (not before its first switch in a sample) */
    __u32 tgid;        /* its process: one of the target's */
    /* --stall: the interval it is in (0: none; its time is not recorded),
     * numbered per thread from 1 by gens; interval_start is when it began
     * (0: in none; with gen 0, one only timed). */
    kd_gen_t gen;
    kd_gen_t gens;
    __u64 interval_start;
    /* Its run queue's clock at its switch-in, seen in this sample (0: not
     * seen); the run ends at that clock's value at its switch-out. */
    __u64 run_clock;
    /* The kernel's total wait for a CPU of the thread (sched_info.run_delay)
     * at its last switch: a READY value is what it grew by since. */
    __u64 wait_seen;
    __u64 stop_start;
    __u64 poll_exit;
    /* --stall: the call sites of the poll family at which it blocked (its
     * loop's waits; 0: none yet), when it entered its last call of the
     * family (0: before it was seen), when it was last woken from a block
     * (interval or not), and whether that call is being restarted (it
     * returned -ERESTART_RESTARTBLOCK: a stop or a trace). */
    __u64 loop_sites[KD_LOOP_SITES];
    __u64 poll_entered;
    __u64 woke_ns;
    __u32 poll_restarting;
    __u32 had_interval;  /* --stall: it has values in the maps (kd_exit) */
    /* --stall: the task's voluntary and involuntary context switches when
     * its interval began (task_struct.nvcsw, .nivcsw). */
    __u64 nvcsw_at_start;
    __u64 nivcsw_at_start;
    /* --stall: its last call site found (site_fn; 0: none), at stack
     * pointer site_sp, where the return address site_ret was word
     * site_word: a loop calls from the same place, and one read of that
     * word tells it again. */
    __u64 site_sp;
    __u64 site_ret;
    __u64 site_fn;
    __u32 site_word;
    __u32 begun_in_wait;  /* --stall: its interval began at a switch-in in its wait */
    __u64 poll_site;  /* the site of its call in flight, found at its entry */
    __u64 intervals;  /* --stall: its loop's intervals begun, stalls or not */
    /* --budget: its group run queue's throttled total (kd_throttled_total)
     * when it began to wait on it (throttle_rq; 0: not waiting), plus what
     * one it left in the wait had counted (throttle_carried); its run
     * queue's steal clock when it got its CPU. */
    __u64 throttle_rq;
    __u64 throttle_seen;
    __u64 throttle_carried;
    __u64 steal_seen;
    /* --timeline: where the run began of a switch-in that its switch-out
     * found missed (0: none), for the timeline's step to record. */
    __u64 run_missed_at;
    struct kd_stat run;
    struct kd_stat ready;
    struct kd_stat stopped;
    struct kd_stat long_poll;
    struct kd_budget budget;
};

/* --stall: an interval of a thread longer than the threshold, on the
 * stalls ring buffer as it ends. thread is the thread's entry then: its
 * RUN, READY and STOPPED and its budget cover the interval; the map values
 * of the thread with kd_stat.gen (or gen) equal to gen hold the rest, in
 * keys whose KD_KEY_INTERVAL_BIT is gen's parity. Until kdelay has read
 * them and deleted the stall_reading entry of that key tid, the thread's
 * intervals take the other parity. */
struct kd_stall {
    __u64 start_ns;
    __u64 end_ns;
    __u32 tid;
    __u32 pad;
    kd_gen_t gen;
    /* The thread's context switches in the interval, by the kernel's own
     * counts (getrusage()'s ru_nvcsw and ru_nivcsw). */
    __u64 nvcsw;
    __u64 nivcsw;
    struct kd_thread thread;
};

/* --stall: a thread that had intervals exited, on the exits ring buffer:
 * kdelay deletes its values, those of every interval up to last_gen, so
 * that a watch holds only live threads'. */
struct kd_exit {
    __u32 tid;
    __u32 tgid;
    kd_gen_t last_gen;
    __u64 intervals;  /* its loop's intervals, all of its life (--metrics) */
    char comm[KD_COMM_LEN];
    char process[KD_COMM_LEN];  /* its main thread's name */
};

/* --timeline: what a thread did in its current interval (or a sample's
 * window), in order, as the kernel saw it: the last KD_TIMELINE_EVENTS
 * (KD_TIMELINE_CALLS) events of each ring (its head counts them all), kept
 * in the kernel and read by kdelay only for a stall or at a sample's end.
 * Slices that end (a syscall, an interrupt, a holder's turn) are written
 * when they end, so events are in order of their end. */
#define KD_TIMELINE_EVENTS 512  /* states, wakeups, holders; a power of two */
#define KD_TIMELINE_CALLS 256   /* syscalls and IRQs; a power of two */
#define KD_TL_STATE 1     /* from `at` the thread is in state arg (KD_B_*), blocked in syscall nr */
#define KD_TL_SYSCALL 2   /* syscall arg from at to end */
#define KD_TL_HARDIRQ 3   /* hard IRQ comm (its action's name, cut) from at to end */
#define KD_TL_SOFTIRQ 4   /* softirq vector arg from at to end */
#define KD_TL_WAKEUP 5    /* woken at `at` by arg (KD_WAKER_*): tid, tgid, comm for a task */
#define KD_TL_HOLDER 6    /* while it waited for its CPU, tid held it from at to end */
#define KD_TL_BLOCKIO 7   /* a block request of op arg on disk nr, of tid bytes, from at to end */
struct kd_tl_event {
    __u64 at;
    __u64 end;
    __u32 kind;
    __u32 arg;
    __u32 nr;
    __u32 tid;
    __u32 tgid;
    __u32 pad;
    char comm[KD_COMM_LEN];
};

struct kd_timeline {
    kd_gen_t gen;
    /* States, wakeups and holders in events; syscalls and IRQs, which can
     * be many more, in calls: each ring's events written in interval gen. */
    __u64 head;
    __u64 calls_head;
    /* The state its last KD_TL_STATE recorded, so that a state is written once. */
    __u64 state_since;
    __u32 state;
    __u32 state_nr;
    struct kd_tl_event events[KD_TIMELINE_EVENTS];
    struct kd_tl_event calls[KD_TIMELINE_CALLS];
};

struct kd_syscall_key {
    __u32 tid;
    __u32 nr;
};

struct kd_syscall {
    struct kd_stat stat;
    __u64 blocked_ns;  /* --budget: time blocked in this syscall */
};

/* Per CPU: the syscalls that last returned there, each with the calls of
 * its current run, not yet added to the syscalls hash. Several, so that
 * threads taking turns on a CPU (each calling its own syscall) do not push
 * each other's runs into the hash at every call. */
#define KD_RECENT_RUNS 4  /* a power of two */
struct kd_recent {
    __u32 tid;
    __u32 nr;
    struct kd_stat stat;
};
struct kd_recent_runs {
    struct kd_recent run[KD_RECENT_RUNS];
    __u32 next;  /* the run to replace next */
    __u32 pad;
};

/* --histogram: the histogram of each per-CPU run (run[i] of kd_recent_runs
 * has count[i]), added to the hist hash only when the run is pushed out. */
struct kd_recent_hists {
    __u64 count[KD_RECENT_RUNS][KD_HIST_SLOTS];
};

/* The key of a plug-in section's rows (src/delay/section.h): what id
 * means is the section's (a kind of lock's flags). */
struct kd_row_key {
    __u32 tid;
    __u32 id;
};

/* --reclaim: a row's id, the kind of reclaim. */
#define KD_RECLAIM_DIRECT 0  /* the machine is short of memory */
#define KD_RECLAIM_MEMCG 1   /* the thread's memory cgroup is at its limit */
#define KD_RECLAIM_SOFT 2    /* cgroup v1 soft limits, inside a direct reclaim */

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
