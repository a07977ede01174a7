#include "cli/bpf_config.h"

#include "core/error.h"
#include "sys/process.h"
#include "target_abi.h"

namespace kdelay {

BpfConfig make_bpf_config(const CommonOptions& o, bool needs_root, const char* one_process_only)
{
    BpfConfig bpf;
    bpf.debug = o.debug;
    bpf.print_ebpf = o.print_ebpf;
    if (one_process_only && o.pids.size() > 1)
        throw Error(Exit::usage, one_process_only);
    if (o.pids.size() > KD_MAX_TARGETS)
        throw Error(Exit::usage, "-p takes at most " + std::to_string(KD_MAX_TARGETS) + " processes");
    if (needs_root && !o.print_ebpf)
        require_root();
    for (pid_t pid : o.pids)
        require_process(pid);
    bpf.pids = o.pids;
    return bpf;
}

}  // namespace kdelay
