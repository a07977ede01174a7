// One stall as the stall watch reads it from the kernel side.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "delay/sample.h"
#include "delay_abi.h"
#include "stall/stall_profile.h"

namespace kdelay {

// One interval of one thread that lasted the threshold or more.
struct Stall {
    uint64_t start_ns = 0;  // CLOCK_MONOTONIC
    uint64_t end_ns = 0;
    uint64_t voluntary_switches = 0;  // the kernel's counts over the interval
    uint64_t involuntary_switches = 0;
    std::string process_name;  // its main thread's name, as the kernel side saw it
    Sample sample;  // that thread alone, over the interval
    std::vector<TimeBudget::LongWait> longest_waits;  // --wait-stacks
    std::optional<TimeBudget::Profile> profile;       // --profile
    std::vector<TimedSample> profile_samples;        // --profile --timeline: each sample, by time
    // --timeline: the interval's events as the kernel kept them: the last
    // of its states, wakeups and holders, then of its syscalls and IRQs;
    // the first states_not_kept of the former are not there.
    std::optional<std::vector<kd_tl_event>> timeline;
    uint64_t states_not_kept = 0;
    uint64_t events_written = 0;
};

}  // namespace kdelay
