// The annotate mode: reads `spdk_trace -j` output and prints it as trace.py
// does, with qpair arguments annotated from `kdelay record` output.
#pragma once

#include <cstdio>
#include <string>

#include "annotate/annotate_config.h"

namespace kdelay {

struct CommonOptions;

// Loads the probe sets; --only-listed-tpoints turns off annotating every
// tracepoint with a `qpair` argument, which trace.py does not do.
void complete_annotate_config(const CommonOptions& common, AnnotateConfig& cfg);

int run_annotate(const AnnotateConfig& cfg, std::FILE* out = stdout);

}  // namespace kdelay
