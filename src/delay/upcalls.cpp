#include "delay/upcalls.h"

#include <cstdlib>
#include <string_view>
#include <unistd.h>

#include "sys/tracefs.h"

namespace kdelay {

std::string UpcallPlan::feature() const
{
    switch (probe) {
    case Probe::kretprobe: return "kretprobe";
    case Probe::tracepoint: return "tracepoint";
    case Probe::none: break;
    }
    return "";
}

UpcallPlan plan_upcalls(bool wanted)
{
    if (!wanted)
        return {};
    if (!mount_tracefs())  // not root: only --ebpf gets here
        return {UpcallPlan::Probe::none, "No UPCALL STATISTICS: tracefs cannot be read"};
    const bool tracepoint = tracepoint_exists("openvswitch", "ovs_dp_upcall");
    if (!tracepoint && access("/sys/module/openvswitch", F_OK) != 0)
        return {UpcallPlan::Probe::none,
                "No UPCALL STATISTICS: the openvswitch kernel module is not loaded"};
    const char* forced = getenv("KDELAY_UPCALL_PROBE");
    const bool want_tracepoint = forced && std::string_view(forced) == "tracepoint";
    if (kprobes_available() && !want_tracepoint)
        return {UpcallPlan::Probe::kretprobe, ""};
    if (tracepoint)
        return {UpcallPlan::Probe::tracepoint,
                "UPCALL STATISTICS count upcalls only: failed upcalls and their errors need "
                "kprobes, which this kernel lacks"};
    if (want_tracepoint)  // before Linux 5.15 the module has no tracepoints
        return {UpcallPlan::Probe::none,
                "No UPCALL STATISTICS: KDELAY_UPCALL_PROBE=tracepoint, and this kernel's "
                "openvswitch module has no ovs_dp_upcall tracepoint"};
    return {UpcallPlan::Probe::none,
            "No UPCALL STATISTICS: this kernel has neither kprobes nor the "
            "openvswitch:ovs_dp_upcall tracepoint"};
}

UpcallStats upcall_stats(const std::map<std::pair<uint32_t, int32_t>, uint64_t>& counts,
                         bool results_known)
{
    UpcallStats u;
    u.results_known = results_known;
    for (const auto& [key, calls] : counts) {
        const auto [cpu, ret] = key;
        u.total[cpu] += calls;
        if (!results_known)
            continue;
        if (ret >= 0)  // as the reference: a non-negative result is a success
            u.succeeded[cpu] += calls;
        else
            u.failed[-ret][cpu] += calls;
    }
    return u;
}

}  // namespace kdelay
