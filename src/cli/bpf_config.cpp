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
    // One target form: -p's processes, a cgroup (--cgroup or --unit), or a command.
    const char* cgroup_flag = !o.cgroup.empty() ? "--cgroup" : !o.unit.empty() ? "--unit" : nullptr;
    if (!o.cgroup.empty() && !o.unit.empty())
        throw Error(Exit::usage, "--cgroup and --unit cannot be used together");
    if (cgroup_flag && !o.pids.empty())
        throw Error(Exit::usage, std::string(cgroup_flag) + " and -p/--pid cannot be used together");
    if (cgroup_flag && !o.command.empty())
        throw Error(Exit::usage, std::string(cgroup_flag) + " and '-- COMMAND' cannot be used together");
    if (one_process_only && (o.pids.size() > 1 || cgroup_flag))
        throw Error(Exit::usage, one_process_only);
    if (o.pids.size() > KD_MAX_TARGETS)
        throw Error(Exit::usage, "-p takes at most " + std::to_string(KD_MAX_TARGETS) + " processes");
    if (needs_root && !o.print_ebpf)
        require_root();
    for (pid_t pid : o.pids)
        require_process(pid);
    bpf.pids = o.pids;
    if (cgroup_flag)
        bpf.cgroup = resolve_cgroup(o.unit.empty() ? o.cgroup : find_unit_cgroup(o.unit));
    return bpf;
}

}  // namespace kdelay
