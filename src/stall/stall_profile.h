// --profile: a stall's CPU-clock samples, as the kernel side kept them,
// grouped by the functions they ran in.
#pragma once

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include <linux/types.h>

#include "delay_abi.h"
#include "report/time_budget.h"

namespace kdelay {

// "name+0x1f [module]" -> "name [module]": samples group by function, not
// by instruction. Other frames ("[unknown] 0x...") stay as they are.
std::string function_frame(const std::string& frame);

// A sample's stacks: the kernel's by its stack_traces id; the user's as
// unwound from its copy (--stack-copy: return addresses, innermost first)
// or, where that is empty, by its stack_traces id.
struct SampleStacks {
    int kernel_stack = -1;
    int user_stack = -1;
    std::vector<uint64_t> user_pcs;
    bool operator<(const SampleStacks& o) const
    {
        return std::tie(kernel_stack, user_stack, user_pcs) < std::tie(o.kernel_stack, o.user_stack, o.user_pcs);
    }
};

// The frames of a sample's stacks, kernel frames first, each innermost
// first (delay/syscall_events.h's stack_frames).
using FramesOf = std::function<std::vector<std::string>(const SampleStacks&)>;
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

// --profile-folded: one line a stack, "frame;frame;frame count", outermost
// frame first, as flamegraph.pl, inferno and speedscope read it (a ';' in
// a frame becomes ':'; a lost stack is "[stack lost]").
std::string folded_stacks(const TimeBudget::Profile& profile);

}  // namespace kdelay
