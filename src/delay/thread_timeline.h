// --timeline: a thread's events over a stall or a sample's window, as the
// kernel kept them, made into tracks: its states, its syscalls and IRQs,
// who held its CPU while it waited, and who woke it (flows from the waker).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <linux/types.h>

#include "delay_abi.h"
#include "report/time_budget.h"
#include "timeline/timeline.h"

namespace kdelay {

// One thread's events over a window: a stall's interval, or a sample's.
struct ThreadEvents {
    uint32_t pid = 0;
    uint32_t tid = 0;
    std::string process;
    std::string thread;
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
    std::vector<kd_tl_event> events;  // as the kernel kept them
    uint64_t states_not_kept = 0;     // the first state, wakeup and holder events, not kept
    std::vector<TimeBudget::LongWait> longest_waits;
    // Its state when the window opened, until its first state change: a
    // stall begins running; a thread in a sample is not known.
    std::string first_state = "running";
};

// The tracks of one thread (a stall's) or of several (a sample's); the
// tracks of threads that held their CPUs or woke them are shared.
Timeline threads_timeline(const std::vector<ThreadEvents>& threads);

}  // namespace kdelay
