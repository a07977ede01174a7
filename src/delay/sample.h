// One sample of the kernel-delay report: what each thread spent its time on.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/log2_hist.h"

namespace kdelay {

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

// A --histogram latency distribution of one thread.
struct HistogramSample {
    std::string kind;  // syscall, run, ready, hardirq, softirq
    std::string name;  // the syscall or softirq vector; "" for the others
    uint32_t id;       // syscall number or vector; 0 for the others
    Log2Hist hist;     // nanoseconds
};

// Where a thread's time in the window went (--budget). The
// parts add up to window_ns; what they do not cover is remainder_ns, shown,
// never hidden.
struct TimeBudget {
    struct Blocked {
        int64_t nr;  // syscall number; kOutsideSyscalls; kUnknownSyscall
        std::string name;
        uint64_t ns;
    };
    static constexpr int64_t kOutsideSyscalls = -1, kUnknownSyscall = -2;

    uint64_t window_ns = 0;
    uint64_t running_ns = 0;
    uint64_t irq_ns = 0;  // of running_ns: in hard and soft IRQ handlers
    uint64_t ready_ns = 0;
    uint64_t blocked_ns = 0;
    std::vector<Blocked> blocked;  // by time, descending
    uint64_t stopped_ns = 0;
    uint64_t not_alive_ns = 0;
    int64_t remainder_ns = 0;
    bool from_proc = false;  // no event in the window: the state /proc shows

    // Who ended the blocked time: a task, or an interrupt ("hardirq",
    // "softirq", "timer": an hrtimer, as at the end of a sleep).
    struct Waker {
        std::string kind;  // task, hardirq, softirq, timer
        uint32_t tid = 0;  // task: the waker's thread and process
        uint32_t pid = 0;
        std::string comm;
        uint64_t count = 0;
        uint64_t blocked_ns = 0;
    };
    std::vector<Waker> wakers;  // by blocked_ns, descending

    // Who had the CPU while the thread was READY: a task, the interrupts
    // it took ("irq"), or "others" (not known: before the window, on a CPU
    // the thread left, or too many holders to keep).
    struct Holder {
        std::string kind;  // task, irq, others
        uint32_t tid = 0;  // task: the holder's thread and process
        uint32_t pid = 0;
        std::string comm;
        uint64_t ns = 0;
    };
    std::vector<Holder> ready_blame;  // by ns, descending
};

struct ThreadSample {
    uint32_t tid = 0;
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
    std::vector<HistogramSample> histograms;  // with --histogram
    std::optional<TimeBudget> budget;         // with --budget, and in JSON
};

// One syscall recorded by --syscall-events.
struct SyscallEvent {
    uint64_t entry_ns;  // CLOCK_MONOTONIC
    uint64_t exit_ns;
    uint32_t tid;
    std::string comm;
    uint32_t nr;
    std::string name;
    std::vector<std::string> frames;  // kernel frames, then user frames
    bool stack_lost = false;          // a stack was wanted but not recorded
    // --budget: who woke the thread inside this syscall, last ("" if none
    // or not known): a task as "comm (pid/tid)", or an interrupt.
    std::string waker;
};

// Calls of the openvswitch module's ovs_dp_upcall() while capturing, system
// wide (upcalls are made in softirq context, on behalf of no thread).
struct UpcallStats {
    using PerCpu = std::map<uint32_t, uint64_t>;  // CPU -> calls
    bool results_known = true;  // false: counted at the tracepoint, no return codes
    PerCpu total;
    PerCpu succeeded;
    std::map<int, PerCpu> failed;  // by errno (positive)

    static uint64_t sum(const PerCpu& per_cpu)
    {
        uint64_t n = 0;
        for (const auto& [cpu, calls] : per_cpu)
            n += calls;
        return n;
    }
};

struct Sample {
    uint32_t poll_nr = 0;  // left out of the syscall total, as poll() is waiting
    std::vector<ThreadSample> threads;  // by name, then tid
    std::optional<UpcallStats> upcalls;  // when counted
    std::vector<SyscallEvent> events;   // in arrival order
};

// The name of a softirq vector: hi (0) to rcu (9), else vec_N.
std::string softirq_name(uint32_t vector);

}  // namespace kdelay
