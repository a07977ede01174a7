#include "cli/bpf_config.h"

#include "sys/process.h"

namespace kdelay {

BpfConfig make_bpf_config(const CommonOptions& o, bool needs_root)
{
    BpfConfig bpf;
    bpf.debug = o.debug;
    bpf.print_ebpf = o.print_ebpf;
    if (needs_root && !o.print_ebpf)
        require_root();
    if (o.pid) {
        require_process(*o.pid);
        bpf.pid = *o.pid;
    }
    return bpf;
}

}  // namespace kdelay
