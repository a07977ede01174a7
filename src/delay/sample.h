// One sample of the kernel-delay report: what each thread spent its time on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "delay/thread_timeline.h"  // and delay_abi.h, for kd_tl_event
#include "report/histogram.h"
#include "report/time_budget.h"
#include "report/upcall_counts.h"

namespace kdelay {

// A kd_stat as the report reads it: how many, their sum, the least and the
// most.
struct Stat {
    uint64_t count = 0;
    uint64_t total_ns = 0;
    uint64_t min_ns = 0;
    uint64_t max_ns = 0;
};

struct SyscallStat {
    uint32_t nr;
    std::string name;
    Stat stat;
};

struct IrqStat {
    std::string name;  // IRQ action name, or softirq vector name
    uint32_t vector;   // softirq vector number; 0 for hard IRQs
    Stat stat;
};

// A row of a plug-in section (delay/section.h): a kind of lock, ...
struct SectionRow {
    std::string name;  // the section's name for the id
    uint32_t id;       // what the kernel side keyed it by (a lock's flags)
    Stat stat;
};

struct BlockIoStat {
    std::string disk;
    char op;  // R, W, F (flush), D (discard), O (other)
    uint64_t bytes;
    Stat stat;  // start (OS queue) to completion
};

struct ThreadSample {
    uint32_t tid = 0;
    uint32_t pid = 0;  // its process, one of the target's (0: not known)
    std::string name;
    std::vector<SyscallStat> syscalls;  // by total time, descending
    std::optional<Stat> long_poll;
    std::optional<Stat> run;
    std::optional<Stat> ready;
    std::optional<Stat> stopped;
    std::vector<IrqStat> hardirqs;  // by total time, descending
    std::vector<IrqStat> softirqs;  // by total time, descending
    // The plug-in sections' rows, by section name; each by total time,
    // descending.
    std::map<std::string, std::vector<SectionRow>> sections;
    std::vector<BlockIoStat> blockio;  // by total time, descending
    std::vector<LatencyHistogram> histograms;  // with --histogram
    std::optional<TimeBudget> budget;          // with --budget
    std::optional<TimeBudget::Profile> profile;  // with --profile
};

// One syscall recorded by --syscall-events.
struct SyscallEvent {
    uint64_t entry_ns;  // CLOCK_MONOTONIC
    uint64_t exit_ns;
    uint32_t tid;
    uint32_t pid;  // its process
    std::string comm;
    uint32_t nr;
    std::string name;
    std::vector<std::string> frames;  // kernel frames, then user frames
    bool stack_lost = false;          // a stack was wanted but not recorded
    // --budget: who woke the thread inside this syscall, last ("" if none
    // or not known): a task as "comm (pid/tid)", or an interrupt.
    std::string waker;
};

struct Sample {
    uint32_t poll_nr = 0;  // left out of the syscall total, as poll() is waiting
    uint64_t probe_runs_skipped = 0;  // by the kernel, in this sample (BpfSession::skipped_runs)
    std::vector<ThreadSample> threads;  // by name, then tid
    std::optional<UpcallStats> upcalls;  // when counted
    std::vector<SyscallEvent> events;   // in arrival order
    // --timeline (samples): each thread's events over the window.
    std::vector<ThreadEvents> timelines;
};

// The name of a softirq vector: hi (0) to rcu (9), else vec_N.
std::string softirq_name(uint32_t vector);

}  // namespace kdelay
