// The annotate mode: reads `spdk_trace -j` output and prints it as trace.py
// does, with qpair arguments annotated from `kdelay record` output.
#pragma once

#include <cstdio>
#include <string>

#include "record/record_set.h"

namespace kdelay {

struct CommonOptions;
struct AnnotateOptions;

struct AnnotateConfig {
    std::string input;    // "" or "-": stdin
    std::string records;  // "": no annotations
    RecordSet set;        // probe arguments and how records annotate the trace
    bool json = false;
};

// Loads the probe sets; --only-listed-tpoints turns off annotating every
// tracepoint with a `qpair` argument, which trace.py does not do.
AnnotateConfig make_annotate_config(const CommonOptions& common, const AnnotateOptions& options);

int run_annotate(const AnnotateConfig& cfg, std::FILE* out = stdout);

}  // namespace kdelay
