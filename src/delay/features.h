// What the delay program records beyond its default sections. Set once from
// the options (delay/config), then read as is by the renderer
// (delay/program) and the collector: one struct, no renamed copies.
#pragma once

#include <cstdint>
#include <optional>

namespace kdelay {

struct DelayFeatures {
    std::optional<uint64_t> syscall_events;  // ns threshold; 0 = every syscall
    bool skip_syscall_poll_events = false;
    uint32_t stack_trace_size = 4096;  // 0: no stack traces
    uint32_t ringbuf_pages = 1024;     // a power of two
    bool upcall_stats = true;
    // The switches of kFeatureSwitches.
    bool histograms = false;
    bool budget = false;  // per-thread time budget: --budget, and always in JSON
    bool locks = false;   // kernel lock contention per thread

    // Syscall events carry stack ids: the program has a stack table.
    bool stack_traces() const { return syscall_events && stack_trace_size > 0; }
};

// A part of the report that one flag turns on: the option declares it, the
// renderer renders the template section of that name, and the probes of
// probes/delay.json whose "when" names it are attached. A new one is a
// field above and a line here.
struct FeatureSwitch {
    const char* name;  // template section and probe "when"
    bool DelayFeatures::*on;
    const char* flag;  // the option
    const char* help;
    // A tracepoint (SYSTEM:EVENT) the kernel must have, and since when; the
    // run stops with exit 69 before anything is compiled when it is missing.
    const char* needs_tracepoint = nullptr;
    const char* since = nullptr;
};

inline constexpr FeatureSwitch kFeatureSwitches[] = {
    {"budget", &DelayFeatures::budget, "--budget",
     "Add each thread's time budget: the window split into running, ready, blocked per\n"
     "syscall, stopped and not alive (always in --format json)"},
    {"histograms", &DelayFeatures::histograms, "--histogram",
     "Add log2 latency histograms per thread: each syscall, run, ready, hard and soft IRQs,\n"
     "each kind of lock (with --locks) and the sleeps in each syscall (with --budget)"},
    {"locks", &DelayFeatures::locks, "--locks",
     "Add each thread's waits for contended kernel locks (mutexes, rwsems, spinlocks) by\n"
     "kind of lock (needs the lock:contention_begin tracepoint, Linux 5.19 or later)",
     "lock:contention_begin", "Linux 5.19"},
};

}  // namespace kdelay
