// What every mode that loads eBPF takes from the options alike: the target,
// -D and --ebpf, checked the same way.
#pragma once

#include <sys/types.h>

#include "cli/common_options.h"

namespace kdelay {

struct BpfConfig {
    pid_t pid = 0;            // -p; 0: none given (yet)
    unsigned debug = 0;       // -D: BCC's output and debug flags
    bool print_ebpf = false;  // --ebpf: print the source and exit
};

// Copies -p, -D and --ebpf. Checks root unless only the source is printed
// (or the mode needs no root at all), then that -p's process exists.
// Throws Error with the matching exit code.
BpfConfig make_bpf_config(const CommonOptions& options, bool needs_root = true);

}  // namespace kdelay
