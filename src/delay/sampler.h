// The sampling loop: time mode (fixed-length samples) and trigger mode
// (samples between probes firing).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "delay/config.h"

namespace kdelay {

class SampleSource;
struct MapOverflow;
class EventWait;
class ReportWriter;

// Warns of what full maps and untracked block requests left out.
void warn_map_losses(const std::vector<MapOverflow>& full, uint64_t bios_lost, ReportWriter& writer);

// Runs cfg.sample_count samples of the target's processes (-p's, or the
// launched command's). Ends early, still reporting what was collected, on
// Ctrl-C or when the last of them exits. on_first_start runs once tracing
// is ready (it releases a launched command).
void run_samples(const DelayConfig& cfg, const std::vector<pid_t>& targets, SampleSource& collector, EventWait& wait,
                 ReportWriter& writer, const std::function<void()>& on_first_start);

}  // namespace kdelay
