// The delay mode: renders the delay program for a target, loads and attaches
// it, and runs the sampler until the samples are done or the target is gone.
#pragma once

#include "delay/config.h"
#include "report/writer.h"

namespace kdelay {

int run_delay(const DelayConfig& cfg, ReportWriter& writer);

}  // namespace kdelay
