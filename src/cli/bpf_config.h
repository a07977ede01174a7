// What every mode that loads eBPF takes from the options alike: the target,
// -D and --ebpf, checked the same way.
#pragma once

#include <optional>
#include <sys/types.h>
#include <vector>

#include "cli/common_options.h"
#include "sys/cgroup.h"

namespace kdelay {

struct BpfConfig {
    std::vector<pid_t> pids;  // -p, each once; empty: none given (yet)
    std::optional<CgroupTarget> cgroup;  // --cgroup or --unit, instead of pids
    unsigned debug = 0;       // -D: BCC's output and debug flags
    bool print_ebpf = false;  // --ebpf: print the source and exit

    // The one process of a mode that takes one (see one_process_only); 0: none.
    pid_t pid() const { return pids.empty() ? 0 : pids.front(); }
};

// Copies -p, -D and --ebpf. Checks root unless only the source is printed
// (or the mode needs no root at all), then that each of -p's processes
// exists, at most KD_MAX_TARGETS of them, or resolves --cgroup or --unit
// (one target form at a time). A mode that takes one process
// names why in one_process_only, said when -p lists several. Throws Error with the matching exit code.
BpfConfig make_bpf_config(const CommonOptions& options, bool needs_root = true,
                          const char* one_process_only = nullptr);

}  // namespace kdelay
