// --syscall-events: the events the ring buffer brought, made into the
// sample's: syscall names, who woke the thread, and the stacks symbolized
// with BCC's symbol caches (built at first use, after the sample).
#pragma once

#include <deque>
#include <sys/types.h>
#include <vector>

#include <linux/types.h>

#include "delay/sample.h"
#include "delay_abi.h"
#include "sys/pid_map.h"

namespace kdelay {

class MapIo;
class Symbolizer;

// The frames of a kernel and a user stack of stack_traces (ids < 0: none),
// kernel frames first, each innermost first, without kdelay's own.
std::vector<std::string> stack_frames(MapIo& maps, Symbolizer& symbols, int kernel_stack, int user_stack);
// As above, with the user stack's addresses given (an unwound stack).
std::vector<std::string> stack_frames(MapIo& maps, Symbolizer& symbols, int kernel_stack,
                                      const std::vector<uint64_t>& user_pcs);

// stack_traces: the program has the stack_traces map. User frames are
// symbolized in each event's own process.
// User frames are read through /proc by the process's id in kdelay's
// namespace (ids).
std::vector<SyscallEvent> resolve_events(const std::deque<kd_event>& events, MapIo& maps, bool stack_traces,
                                         const PidMap& ids);

}  // namespace kdelay
