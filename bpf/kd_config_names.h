/* Every name of kd_config.h, declared once for both sides.
 *
 * Each list is an X-macro. A config list gives X(NAME, KIND):
 *   NUMBER   an unsigned number;
 *   FLAG     0 or 1, for #if;
 *   TYPE     a C type name (__u32);
 *   INDEXED  NAME_0, NAME_1, ...; how many is another name's number.
 * An offsets list gives X(NAME, MEMBER): the offset of MEMBER of a layout
 * that kdelay reads from BTF (src/loader/btf_offsets.h).
 *
 * The C++ side (src/loader/config_names.h) writes kd_config.h from these
 * lists, and refuses a name that its program does not declare or a
 * declared name it leaves out. Each eBPF part requires the lists it reads
 * (KD_REQUIRE_CONFIG, KD_REQUIRE_OFFSETS): a name kd_config.h lacks fails
 * the compile and is named in the error. The preprocessor cannot expand a
 * list into #ifndef lines, so the check is a static assertion, which an
 * undeclared identifier fails; #if on an undefined name is caught by the
 * part check's -Wundef -Werror (tests/unit/delay/program_test.cpp). */
#ifndef KD_CONFIG_NAMES_H
#define KD_CONFIG_NAMES_H

/* ---- targets.bpf.h: whose tasks are traced ---- */
#define KD_TARGET_CONFIG(X)          \
    X(TARGET_TGIDS, NUMBER)          \
    X(TARGET_TGID, INDEXED)          \
    X(TARGET_CGROUP_ID, NUMBER)      \
    X(TARGET_CGROUP_PARENT_ID, NUMBER) \
    X(TARGET_CGROUP_NAME_LEN, NUMBER) \
    X(TARGET_CGROUP_NAME_HASH, NUMBER) \
    X(TARGET_CGROUP_V1, FLAG)        \
    X(TARGET_CGROUP_SUBSYS, NUMBER)

/* CgroupLayout: from a task to its cgroup and up (0 without a cgroup). */
#define KD_CGROUP_OFFSETS(X)                  \
    X(TASK_CGROUPS_OFF, task_cgroups)         \
    X(CSS_SET_DFL_CGRP_OFF, css_set_dfl_cgrp) \
    X(CSS_SET_SUBSYS_OFF, css_set_subsys)     \
    X(CSS_CGROUP_OFF, css_cgroup)             \
    X(CGROUP_KN_OFF, cgroup_kn)               \
    X(CGROUP_PARENT_OFF, cgroup_parent)       \
    X(KERNFS_ID_OFF, kernfs_id)               \
    X(KERNFS_NAME_OFF, kernfs_name)

/* ---- block/block_io.bpf.h: block I/O start and issue ---- */
#define KD_BLOCK_CONFIG(X) \
    X(WITH_BLOCK, FLAG)    \
    X(MAX_BIOS, NUMBER)    \
    X(WITH_BIO_QUEUE, FLAG)

/* BlockLayout (0 without one). */
#define KD_BLOCK_OFFSETS(X)         \
    X(RQ_Q_OFF, rq_q)               \
    X(RQ_SECTOR_OFF, rq_sector)     \
    X(RQ_FLAGS_OFF, rq_flags)       \
    X(QUEUE_DISK_OFF, queue_disk)   \
    X(DISK_MAJOR_OFF, disk_major)   \
    X(DISK_MINOR_OFF, disk_minor)

/* BioLayout (0 where block_io_start starts a request). */
#define KD_BIO_OFFSETS(X)           \
    X(BIO_BDEV_OFF, bio_bdev)       \
    X(BIO_SECTOR_OFF, bio_sector)   \
    X(BDEV_DISK_OFF, bdev_disk)

/* ---- biosnoop.bpf.c ---- */
#define KD_BIOSNOOP_CONFIG(X) \
    X(FILTER_DEV, NUMBER)

/* ---- delay.bpf.c: the delay report, samples and --stall ---- */
/* KernelLayout. */
#define KD_TASK_OFFSETS(X)                          \
    X(TASK_PID_OFF, task_pid)                       \
    X(TASK_TGID_OFF, task_tgid)                     \
    X(TASK_STATE_OFF, task_state)                   \
    X(TASK_COMM_OFF, task_comm)                     \
    X(TASK_RUN_DELAY_OFF, task_run_delay)           \
    X(TASK_LAST_ARRIVAL_OFF, task_last_arrival)     \
    X(TASK_LAST_QUEUED_OFF, task_last_queued)       \
    X(TASK_CFS_RQ_OFF, task_cfs_rq)                 \
    X(CFS_RQ_RQ_OFF, cfs_rq_rq)                     \
    X(RQ_CLOCK_OFF, rq_clock)                       \
    X(RQ_CPU_OFF, rq_cpu)                           \
    X(IRQACTION_NAME_OFF, irqaction_name)           \
    X(PT_REGS_NR_OFF, regs_syscall_nr)              \
    X(PT_REGS_RC_OFF, regs_return)                  \
    X(TASK_NVCSW_OFF, task_nvcsw)                   \
    X(TASK_NIVCSW_OFF, task_nivcsw)                 \
    X(TASK_GROUP_LEADER_OFF, task_group_leader)

#define KD_DELAY_CONFIG(X)               \
    X(POLL_NR, NUMBER)                   \
    X(TASK_STATE_TYPE, TYPE)             \
    X(PT_REGS_NR_TYPE, TYPE)             \
    X(TASK_PT_REGS, FLAG)                \
    X(SWITCH_PASSES_PREV_STATE, FLAG)    \
    X(MAX_CPUS, NUMBER)                  \
    X(SLOT_CLAIMS, FLAG)                 \
    X(WITH_BUDGET, FLAG)                 \
    X(WITH_HISTOGRAMS, FLAG)             \
    X(WITH_START_TRIGGER, FLAG)          \
    X(WITH_STOP_TRIGGER, FLAG)           \
    X(START_TRIGGER_TARGET_ONLY, FLAG)   \
    X(STOP_TRIGGER_TARGET_ONLY, FLAG)    \
    X(WITH_SYSCALL_EVENTS, FLAG)         \
    X(SYSCALL_EVENT_MIN_NS, NUMBER)      \
    X(SKIP_POLL_EVENTS, FLAG)            \
    X(RINGBUF_PAGES, NUMBER)             \
    X(WITH_STACK_TRACES, FLAG)           \
    X(STACK_TRACE_SIZE, NUMBER)          \
    X(WITH_TIMELINE, FLAG)               \
    X(TIMELINE_THREADS, NUMBER)          \
    X(WAIT_STACKS, NUMBER)               \
    X(PROFILE_HZ, NUMBER)                \
    X(WINDOW_PROFILE_STACKS, NUMBER)     \
    X(WITH_UPCALLS, FLAG)                \
    X(STALL, FLAG)                       \
    X(STALL_NS, NUMBER)              \
    X(STALL_RINGBUF_PAGES, NUMBER)       \
    X(EXITS_RINGBUF_PAGES, NUMBER)       \
    X(STALL_SITES, FLAG)                 \
    X(PT_REGS_SP_OFF, NUMBER)            \
    X(PT_REGS_CS_OFF, NUMBER)            \
    X(PT_REGS_SIZE, NUMBER)              \
    X(TASK_STACK_OFF, NUMBER)            \
    X(THREAD_SIZE, NUMBER)               \
    X(STACK_COPY_BYTES, NUMBER)          \
    X(STACK_COPY_RINGBUF_PAGES, NUMBER)  \
    X(WITH_WAIT_COPY, FLAG)              \
    X(STALL_RESTART_NR, NUMBER)          \
    X(STALL_POLL_NRS, NUMBER)            \
    X(STALL_POLL_NR, INDEXED)            \
    X(TASK_ITERATOR, FLAG)               \
    X(TASK_ON_CPU_OFF, NUMBER)           \
    X(TASK_ON_CPU_SIZE, NUMBER)          \
    X(THROTTLE_MEASURED, FLAG)           \
    X(CFS_THROTTLED_ENDED_OFF, NUMBER)   \
    X(CFS_THROTTLED_SINCE_OFF, NUMBER)   \
    X(CFS_THROTTLE_COUNT_OFF, NUMBER)    \
    X(THROTTLE_CLOCK_OFF, NUMBER)        \
    X(STEAL_MEASURED, FLAG)              \
    X(RQ_STEAL_OFF, NUMBER)              \
    X(MAX_THREADS, NUMBER)               \
    X(MAX_SYSCALLS, NUMBER)              \
    X(MAX_HARDIRQS, NUMBER)              \
    X(MAX_SOFTIRQS, NUMBER)              \
    X(MAX_WAKERS, NUMBER)                \
    X(MAX_BLAME, NUMBER)                 \
    X(MAX_HIST, NUMBER)                  \
    X(MAX_BLOCKIO, NUMBER)               \
    X(MAP_FULL_COUNT, NUMBER)

/* The delay program's plug-in sections (src/delay/sections/): each one's
 * switch, maps' sizes, map-full counters and histogram kind. */
#define KD_LOCKS_CONFIG(X)     \
    X(WITH_LOCKS, FLAG)        \
    X(MAX_LOCKS, NUMBER)       \
    X(KD_MAP_LOCKS, NUMBER)    \
    X(MAX_LOCK_WAITS, NUMBER)  \
    X(KD_HIST_LOCK, NUMBER)

#define KD_RECLAIM_CONFIG(X)     \
    X(WITH_RECLAIM, FLAG)        \
    X(MAX_RECLAIM, NUMBER)       \
    X(KD_MAP_RECLAIM, NUMBER)    \
    X(MAX_RECLAIM_RUNS, NUMBER)  \
    X(KD_HIST_RECLAIM, NUMBER)

/* ---- pidns.bpf.c: the target's ids in kdelay's PID namespace ---- */
/* PidNsLayout (0 without one). */
#define KD_PIDNS_OFFSETS(X)                     \
    X(TASK_THREAD_PID_OFF, task_thread_pid)     \
    X(TASK_GROUP_LEADER_OFF, task_group_leader) \
    X(TASK_TGID_OFF, task_tgid)                 \
    X(PID_LEVEL_OFF, pid_level)                 \
    X(PID_NUMBERS_OFF, pid_numbers)             \
    X(UPID_NR_OFF, upid_nr)                     \
    X(UPID_NS_OFF, upid_ns)

#define KD_PIDNS_CONFIG(X)      \
    X(NS_DEV, NUMBER)           \
    X(NS_INO, NUMBER)           \
    X(TASK_ITERATOR, FLAG)      \
    X(TASK_PID_OFF, NUMBER)     \
    X(UPID_SIZE, NUMBER)        \
    X(PIDNS_INUM_OFF, NUMBER)

/* ---- record.bpf.c ---- */
#define KD_RECORD_CONFIG(X) \
    X(RINGBUF_PAGES, NUMBER)

/* The kernel side's check that kd_config.h defines each name of a list. */
#define KD_REQUIRE_NUMBER(name) _Static_assert(sizeof(name) > 0, "kd_config.h defines " #name);
#define KD_REQUIRE_FLAG(name) _Static_assert((name) == 0 || (name) == 1, "kd_config.h defines " #name " as 0 or 1");
#define KD_REQUIRE_TYPE(name) _Static_assert(sizeof(name) > 0, "kd_config.h defines " #name " as a type");
#define KD_REQUIRE_INDEXED(name)
#define KD_REQUIRE_NAME(name, kind) KD_REQUIRE_##kind(name)
#define KD_REQUIRE_OFFSET(name, member) KD_REQUIRE_NUMBER(name)
#define KD_REQUIRE_CONFIG(list) list(KD_REQUIRE_NAME)
#define KD_REQUIRE_OFFSETS(list) list(KD_REQUIRE_OFFSET)

#endif
