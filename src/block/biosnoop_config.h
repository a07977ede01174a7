// kdelay biosnoop's one configuration: the command line fills its options
// (biosnoop_options.cpp), and complete_biosnoop_config() (biosnoop.h) adds
// what only the system can tell.
#pragma once

#include <cstdint>
#include <string>

#include "cli/bpf_config.h"

namespace kdelay {

struct BiosnoopConfig {
    // From the command line.
    bool queue = false;   // -Q: show the OS queue time
    std::string disk;     // -d; "": every disk
    double duration = 0;  // --duration, seconds; 0: until Ctrl-C

    // From the system (complete_biosnoop_config).
    BpfConfig bpf;     // -p (none: every process), -D, --ebpf
    uint32_t dev = 0;  // the disk's MKDEV
};

}  // namespace kdelay
