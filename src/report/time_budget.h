// A report kind: where one thread's time in a window went (--budget), with
// who held the CPU while it waited and who ended its blocked time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kdelay {

// Who ended a blocked time: a task, or an interrupt context (an hrtimer,
// as at the end of a sleep, is "timer").
enum class WakerKind { task, hardirq, softirq, timer, unknown };
// Who had the CPU while a thread was READY: a task, the interrupts it took,
// "others" (not known: before the window, on a CPU the thread left, or too
// many holders to keep), or "open" (a wait not ended when the window
// closed: blamed when it ends).
enum class HolderKind { task, irq, others, open };

// Their names in the reports (docs/json.md's "kind").
inline const char* kind_name(WakerKind kind)
{
    switch (kind) {
    case WakerKind::task: return "task";
    case WakerKind::hardirq: return "hardirq";
    case WakerKind::softirq: return "softirq";
    case WakerKind::timer: return "timer";
    case WakerKind::unknown: break;
    }
    return "unknown";
}

inline const char* kind_name(HolderKind kind)
{
    switch (kind) {
    case HolderKind::task: return "task";
    case HolderKind::irq: return "irq";
    case HolderKind::others: return "others";
    case HolderKind::open: return "open";
    }
    return "others";
}

// The parts add up to window_ns; what they do not cover is remainder_ns,
// shown, never hidden.
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
    // Of ready_ns: while the thread's cgroup, or an ancestor, was throttled
    // by its CPU bandwidth limit (the rest was queued behind other tasks);
    // nullopt where the kernel does not count it (docs/report.md).
    std::optional<uint64_t> throttled_ns;
    // READY's other part, waiting behind other tasks: nullopt with
    // throttled_ns.
    std::optional<uint64_t> queued_ns() const
    {
        if (!throttled_ns)
            return std::nullopt;
        return ready_ns - std::min(*throttled_ns, ready_ns);
    }
    // The limit that throttled it: the cgroup, as /proc/PID/cgroup names it
    // in its hierarchy, and its quota and period as cgroup2's cpu.max
    // writes them ("20000 100000"); empty where none was found.
    std::string throttled_by;
    std::string throttled_by_cpu_max;
    // Of running_ns: stolen from its vCPU by the hypervisor while it ran
    // (the paravirt steal clock); nullopt where the kernel does not count it.
    std::optional<uint64_t> steal_ns;
    // Not in the window: how long a wait for a CPU under way when it opened
    // had lasted by then (the kernel's run_delay counts it when it ends).
    uint64_t ready_before_ns = 0;
    uint64_t blocked_ns = 0;
    std::vector<Blocked> blocked;  // by time, descending
    uint64_t stopped_ns = 0;
    uint64_t not_alive_ns = 0;
    int64_t remainder_ns = 0;
    // Where the parts come from: the program's events; for a thread with
    // no event in the window, its state at the end (the task iterator:
    // running, waiting for a CPU, asleep), or /proc's alone where the kernel
    // has no task iterator, which tells a thread on its CPU from one waiting
    // for it only by its run time.
    enum class Source { ebpf, iterator, proc };
    Source source = Source::ebpf;

    // Another task, or what stands for one (an interrupt, other tasks), by kind.
    template <class Kind>
    struct Party {
        Kind kind = Kind::task;
        uint32_t tid = 0;  // task: its thread and process
        uint32_t pid = 0;
        std::string comm;
    };
    // Who ended the blocked time.
    struct Waker : Party<WakerKind> {
        uint64_t count = 0;
        uint64_t blocked_ns = 0;
    };
    std::vector<Waker> wakers;  // by blocked_ns, descending

    // Who had the CPU while the thread was READY.
    struct Holder : Party<HolderKind> {
        uint64_t ns = 0;
    };
    std::vector<Holder> ready_blame;  // by ns, descending

    // --wait-stacks: the longest waits in a syscall, with the kernel and
    // user stacks where each began.
    struct LongWait {
        uint64_t start_ns = 0;  // CLOCK_MONOTONIC
        uint64_t ns = 0;
        std::string syscall;
        std::vector<std::string> frames;  // kernel frames, then user frames, innermost first
        bool stack_lost = false;
    };
    std::vector<LongWait> longest_waits;  // by ns, descending

    // --profile: where the thread ran. Each sample of the CPU clock that
    // found it running, every period_ns of CPU time, by the stack it ran in.
    struct Profile {
        unsigned hz = 0;
        uint64_t period_ns = 0;
        uint64_t samples = 0;  // taken, those lost included
        uint64_t lost = 0;     // past the kernel's store of an interval
        uint64_t stacks_lost = 0;  // kept, but the stack table had no slot for a stack
        // The CPU time the kept samples stand for: a period each, more for
        // a timer that fired late (a guest whose CPU its host held).
        uint64_t sampled_ns = 0;
        struct Stack {
            uint64_t count = 0;
            uint64_t cpu_ns = 0;  // its samples' share of sampled_ns
            // Functions, outermost first: the user frames, then the kernel
            // frames the sample was in ("function [module]").
            std::vector<std::string> frames;
        };
        std::vector<Stack> stacks;  // by CPU time, descending
        // The files of the user frames, by the name the frames give them
        // ("[libc.so.6]"): their path and GNU build-id (hex, "" for none),
        // so that a frame can be symbolized later, elsewhere.
        struct Module {
            std::string path;
            std::string build_id;
        };
        std::map<std::string, Module> modules;
    };
    std::optional<Profile> profile;
};

}  // namespace kdelay
