// --stall: watching each thread's intervals instead of sampling.
#pragma once

#include <functional>
#include <sys/types.h>
#include <vector>

#include "delay/config.h"

namespace kdelay {

class DelayCollector;
class EventWait;
class ReportWriter;

// Reports every stall as it ends, until Ctrl-C, the exit of the last of
// the target's processes, or cfg.duration; then what was lost, if
// anything. on_start runs once watching has begun (it releases a launched
// command).
void watch_stalls(const DelayConfig& cfg, const std::vector<pid_t>& targets, DelayCollector& collector,
                  EventWait& wait, ReportWriter& writer, const std::function<void()>& on_start);

}  // namespace kdelay
