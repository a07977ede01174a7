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
    bool histograms = false;
    bool upcall_stats = true;
    bool budget = false;  // per-thread time budget: --budget, and always in JSON
    bool locks = false;   // kernel lock contention per thread: --locks

    // Syscall events carry stack ids: the program has a stack table.
    bool stack_traces() const { return syscall_events && stack_trace_size > 0; }
};

}  // namespace kdelay
