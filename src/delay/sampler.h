// Time mode: sampling loops of fixed length.
#pragma once

#include <functional>

#include "delay/config.h"

namespace kdelay {

class DelayCollector;
class EventWait;
class ReportWriter;

// Runs cfg.sample_count samples of cfg.sample_time seconds. Ends early,
// still reporting what was collected, on Ctrl-C or when the target exits.
// on_first_start runs once capture is on (it releases a launched command).
void run_time_mode(const DelayConfig& cfg, DelayCollector& collector, EventWait& wait,
                   ReportWriter& writer, const std::function<void()>& on_first_start);

}  // namespace kdelay
