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

// stack_traces: the program has the stack_traces map. User frames are
// symbolized in each event's own process.
// User frames are read through /proc by the process's id in kdelay's
// namespace (ids).
std::vector<SyscallEvent> resolve_events(const std::deque<kd_event>& events, MapIo& maps, bool stack_traces,
                                         const PidMap& ids);

}  // namespace kdelay
