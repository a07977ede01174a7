// What the delay program records beyond its default sections. Set once from
// the options (delay/config), then read as is by the renderer
// (delay/program) and the collector: one struct, no renamed copies.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kdelay {

struct DelayFeatures {
    std::optional<uint64_t> syscall_events;  // ns threshold; 0 = every syscall
    bool skip_syscall_poll_events = false;
    uint32_t stack_trace_size = 4096;  // 0: no stack traces
    uint32_t buffer_page_count = 1024;  // ring buffer pages, a power of two
    bool upcall_stats = true;
    // --stall --timeline: each thread keeps its interval's events in the
    // kernel (kd_timeline); --wait-stacks: the stacks of its N longest waits.
    bool timeline = false;
    unsigned wait_stacks = 0;
    // --stall --profile HZ: samples of where each interval ran (0: off).
    unsigned profile_hz = 0;
    // --stack-copy BYTES: each kept sample's top of user stack, for user
    // space to unwind by .eh_frame (0: frame pointers only).
    uint32_t stack_copy_bytes = 0;
    // The core's switches (kCoreSwitches).
    bool histograms = false;
    bool budget = false;  // per-thread time budget (--budget), in text and JSON
    // The plug-in sections turned on, by name (delay/section.h).
    std::set<std::string> sections;

    // Syscall events, waits or profile samples carry stack ids: the program
    // has a stack table.
    bool stack_traces() const { return (syscall_events || wait_stacks || profile_hz) && stack_trace_size > 0; }
};

// A part of the report that one flag turns on: the option declares it, the
// program turns on WITH_NAME (kd_config.h) for it, and the probes of
// probes/delay.json whose "when" names it are attached.
struct FeatureSwitch {
    const char* name;  // WITH_NAME in kd_config.h, and the probes' "when"
    const char* flag;  // the option
    const char* help;
    // A tracepoint (SYSTEM:EVENT) the kernel must have, and since when; the
    // run stops with exit 69 before anything is compiled when it is missing.
    const char* needs_tracepoint = nullptr;
    const char* since = nullptr;
    // A core switch's field; null for a plug-in section's switch, which is
    // kept by name in DelayFeatures::sections.
    bool DelayFeatures::*field = nullptr;

    bool is_on(const DelayFeatures& f) const { return field ? f.*field : f.sections.count(name) > 0; }
    void turn_on(DelayFeatures& f) const
    {
        if (field)
            f.*field = true;
        else
            f.sections.insert(name);
    }
};

inline constexpr FeatureSwitch kCoreSwitches[] = {
    {"budget", "--budget",
     "Add each thread's time budget: the window split into running (stolen by the host),\n"
     "ready (queued, or throttled by a cgroup's CPU limit), blocked per syscall, stopped\n"
     "and not alive, with who held the CPU and who woke the thread (a thread with no\n"
     "event: its state when the window closed, by the task iterator)",
     nullptr, nullptr, &DelayFeatures::budget},
    {"histograms", "--histogram",
     "Add log2 latency histograms per thread: each syscall, run, ready, hard and soft IRQs,\n"
     "the sleeps in each syscall (with --budget), and each row of the sections below",
     nullptr, nullptr, &DelayFeatures::histograms},
};

// Every switch: the core's, then each plug-in section's, in report order.
std::vector<const FeatureSwitch*> feature_switches();

// The names of the switches that are on: the program parts to turn on.
std::set<std::string> switches_on(const DelayFeatures& f);

// The probes' "when"s to attach: the switches on, "timeline", and "stall"
// for --stall's own program on sched_switch.
std::set<std::string> probes_on(const DelayFeatures& f, bool stall);

}  // namespace kdelay
