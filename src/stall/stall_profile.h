// --profile: a stall's CPU-clock samples, as the kernel side kept them,
// grouped by the functions they ran in.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <linux/types.h>

#include "delay_abi.h"
#include "report/time_budget.h"

namespace kdelay {

// "name+0x1f [module]" -> "name [module]": samples group by function, not
// by instruction. Other frames ("[unknown] 0x...") stay as they are.
std::string function_frame(const std::string& frame);

// The frames of a pair of stack_traces ids, kernel frames first, each
// innermost first (delay/syscall_events.h's stack_frames).
using FramesOf = std::function<std::vector<std::string>(int kernel_stack, int user_stack)>;

// The interval's samples, each pair of stacks looked up once, grouped by
// function frames, outermost first.
TimeBudget::Profile stall_profile(const kd_profile& kept, unsigned hz, const FramesOf& frames_of);

}  // namespace kdelay
