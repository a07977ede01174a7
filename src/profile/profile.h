// --profile: CPU-clock samples grouped by the stacks they ran in, into the
// report's profile; shared by a stall's (stall/stall_profile.h) and a
// sample's (delay/window_profile.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

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

// Whether a stack_traces id lost a stack that was there: get_stackid's
// -EFAULT is no stack of that side (a sample in user mode has no kernel
// stack).
bool stack_lost(int id);

// The frames of a sample's stacks, kernel frames first, each innermost
// first (profile/stack_frames.h).
using FramesOf = std::function<std::vector<std::string>(const SampleStacks&)>;

// Samples and the CPU time they stand for, of one pair of stacks.
struct StackTally {
    uint64_t count = 0;
    uint64_t cpu_ns = 0;
};
using StackTallies = std::map<SampleStacks, StackTally>;

// The profile of samples tallied by their stacks, at hz: grouped by
// function frames, outermost first, by CPU time, descending. samples,
// sampled_ns and stacks_lost are counted from the tallies; frames_of_stacks
// gets each pair's frames as grouped.
TimeBudget::Profile profile_of(unsigned hz, const StackTallies& tallies, const FramesOf& frames_of,
                               std::map<SampleStacks, std::vector<std::string>>* frames_of_stacks = nullptr);

// --profile-folded: one line a stack, "frame;frame;frame count", outermost
// frame first, as flamegraph.pl, inferno and speedscope read it (a ';' in
// a frame becomes ':'; a lost stack is "[stack lost]").
std::string folded_stacks(const TimeBudget::Profile& profile);

}  // namespace kdelay
