// A report kind: Open vSwitch upcalls per CPU, by result, machine-wide
// (upcalls are made in softirq context, on behalf of no thread).
#pragma once

#include <cstdint>
#include <map>

namespace kdelay {

struct UpcallStats {
    using PerCpu = std::map<uint32_t, uint64_t>;  // CPU -> calls
    bool results_known = true;  // false: counted at the tracepoint, no return codes
    PerCpu total;
    PerCpu succeeded;
    std::map<int, PerCpu> failed;  // by errno (positive)

    static uint64_t sum(const PerCpu& per_cpu)
    {
        uint64_t n = 0;
        for (const auto& [cpu, calls] : per_cpu)
            n += calls;
        return n;
    }
};

}  // namespace kdelay
