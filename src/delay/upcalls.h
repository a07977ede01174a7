// Open vSwitch upcall statistics: which kernel hook can count them here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "delay/sample.h"

namespace kdelay {

struct UpcallPlan {
    enum class Probe { none, kretprobe, tracepoint };
    Probe probe = Probe::none;
    std::string note;  // for the user when the statistics are missing or partial

    // The probes/upcall.json feature to attach; "" for none.
    std::string feature() const;
};

// Asks this kernel: the openvswitch module (its ovs_dp_upcall tracepoint
// or /sys/module/openvswitch), then kprobes. KDELAY_UPCALL_PROBE=tracepoint
// takes the tracepoint even where kprobes work (for tests of that path).
// Without wanted (--skip-upcall-stats), no hook and no note.
UpcallPlan plan_upcalls(bool wanted);

// The counters of the upcalls map, by (CPU, return code), as a report section.
UpcallStats upcall_stats(const std::map<std::pair<uint32_t, int32_t>, uint64_t>& counts,
                         bool results_known);

}  // namespace kdelay
