// --stall: watching each thread's intervals instead of sampling.
#pragma once

#include "delay/config.h"

namespace kdelay {

class DelayRun;
class ReportWriter;

// Reports every stall as it ends, until Ctrl-C, the exit of the last of
// the target's processes, or cfg.duration; then what was lost, if
// anything. A launched command is let run once watching has begun.
void watch_stalls(const DelayConfig& cfg, DelayRun& run, ReportWriter& writer);

}  // namespace kdelay
