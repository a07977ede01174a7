#include "cli/bpf_run.h"

#include "sys/process.h"

namespace kdelay {

BpfRun make_bpf_run(const Options& o, bool needs_root)
{
    BpfRun run;
    run.debug = o.debug;
    run.print_ebpf = o.print_ebpf;
    if (needs_root && !o.print_ebpf)
        require_root();
    if (o.pid) {
        require_process(*o.pid);
        run.pid = *o.pid;
    }
    return run;
}

}  // namespace kdelay
