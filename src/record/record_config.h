// kdelay record's one configuration: the command line fills its options
// (record_options.cpp), and complete_record_config() (recorder.h) adds
// what only the system can tell.
#pragma once

#include <string>
#include <vector>

#include "cli/bpf_config.h"
#include "record/record_set.h"

namespace kdelay {

struct RecordConfig {
    // From the command line.
    std::vector<std::string> probes;  // --probes files; none: the embedded SPDK set
    std::string output;               // -o; "": stdout
    bool json = false;                // --format json: JSON Lines instead of trace.py's text format

    // From the system (complete_record_config).
    BpfConfig bpf;  // -p, -D, --ebpf
    RecordSet set;  // the probe sets, loaded
};

}  // namespace kdelay
