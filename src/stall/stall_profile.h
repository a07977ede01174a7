// --profile with --stall: a stall's CPU-clock samples, as the kernel side
// kept them in the interval's store, grouped by the functions they ran in
// (profile/profile.h).
#pragma once

#include <functional>
#include <vector>

#include <linux/types.h>

#include "delay_abi.h"
#include "profile/profile.h"
#include "report/time_budget.h"

namespace kdelay {

// The user stack of sample i of the store, as unwound from its copy; empty
// where it has none.
using UnwoundOf = std::function<std::vector<uint64_t>(uint32_t sample, int user_stack)>;

// One kept sample: when, and its stack in the profile's stacks.
struct TimedSample {
    uint64_t at_ns = 0;  // CLOCK_MONOTONIC
    size_t stack = 0;
};

// The interval's samples, each pair of stacks looked up once, grouped by
// function frames, outermost first; with timed, each sample in time order
// (the interval began at start_ns).
TimeBudget::Profile stall_profile(const kd_profile& kept, unsigned hz, const FramesOf& frames_of,
                                  const UnwoundOf& unwound = {}, uint64_t start_ns = 0,
                                  std::vector<TimedSample>* timed = nullptr);

}  // namespace kdelay
