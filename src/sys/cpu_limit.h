// The CPU bandwidth limits (CFS quota) on a process's cgroups, and the
// kernel's count of the throttling each caused: the budget names the limit
// behind a thread's throttled time.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

struct CpuLimit {
    std::string cgroup;  // as /proc/PID/cgroup names it in its hierarchy ("/pod/app")
    std::string dir;     // its directory in cgroupfs
    uint64_t quota_us = 0;
    uint64_t period_us = 0;
    // cpu.stat: the periods in which it was throttled, so far.
    uint64_t nr_throttled = 0;
    // As cgroup2's cpu.max writes it: "20000 100000".
    std::string cpu_max() const { return std::to_string(quota_us) + " " + std::to_string(period_us); }
};

// The limits on process pid's cgroup and its ancestors, innermost first:
// in the v1 hierarchy of the cpu controller where one is mounted
// (cpu.cfs_quota_us), else in cgroup2's (cpu.max). Empty when there is
// none, or the process is gone.
std::vector<CpuLimit> cpu_limits_of(pid_t pid);

// The quota and period of cgroup2's cpu.max ("max 100000": none).
bool parse_cpu_max(const std::string& text, uint64_t& quota_us, uint64_t& period_us);
// nr_throttled from cpu.stat (either version); 0 where absent.
uint64_t parse_nr_throttled(const std::string& text);

// Of the limits on a process at a window's start and at its end (innermost
// first), the one that throttled it in the window: the innermost whose
// count grew; else the innermost. nullptr when there is none.
const CpuLimit* limit_that_throttled(const std::vector<CpuLimit>& before, const std::vector<CpuLimit>& after);

// The limits on processes as last looked at, to tell which one throttled
// a process since.
class CpuLimitWatch {
public:
    void clear() { seen_.clear(); }
    void look(pid_t pid) { seen_[pid] = cpu_limits_of(pid); }
    // The limit that throttled pid since its last look (or, without one,
    // its innermost), looking again; nullopt when it has none.
    std::optional<CpuLimit> throttled(pid_t pid);

private:
    std::map<pid_t, std::vector<CpuLimit>> seen_;
};

}  // namespace kdelay
