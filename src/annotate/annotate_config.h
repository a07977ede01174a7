// kdelay annotate's one configuration: the command line fills its options
// (annotate_options.cpp), and complete_annotate_config() (annotate.h) loads
// what they name.
#pragma once

#include <string>
#include <vector>

#include "record/record_set.h"

namespace kdelay {

struct AnnotateConfig {
    // From the command line.
    std::string input;                // -i; "" or "-": stdin
    std::string records;              // -b; "": no annotations
    std::vector<std::string> probes;  // --probes files: how the records annotate
    bool only_listed_tpoints = false; // --only-listed-tpoints
    bool json = false;                // --format json

    // Loaded (complete_annotate_config).
    RecordSet set;  // probe arguments and how records annotate the trace
};

}  // namespace kdelay
