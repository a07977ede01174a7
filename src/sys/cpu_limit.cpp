#include "sys/cpu_limit.h"

#include <map>
#include <mntent.h>
#include <sstream>

#include "sys/process.h"

namespace kdelay {
namespace {

bool parse_u64(const std::string& text, uint64_t& value)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19)
        return false;
    value = std::stoull(text);
    return true;
}

// Where the hierarchies are mounted: v1's with the cpu controller, and
// cgroup2's (empty: none).
struct Mounts {
    std::string cpu_v1;
    std::string unified;
};

Mounts cgroup_mounts()
{
    Mounts found;
    FILE* mounts = setmntent("/proc/self/mounts", "r");
    if (!mounts)
        return found;
    while (const struct mntent* m = getmntent(mounts)) {
        const std::string type = m->mnt_type;
        if (type == "cgroup" && found.cpu_v1.empty() && hasmntopt(m, "cpu"))
            found.cpu_v1 = m->mnt_dir;
        else if (type == "cgroup2" && found.unified.empty())
            found.unified = m->mnt_dir;
    }
    endmntent(mounts);
    return found;
}

// The process's cgroup in the hierarchy of the cpu controller (v1), and in
// cgroup2's, from /proc/PID/cgroup.
struct ProcessCgroups {
    std::string cpu_v1;
    std::string unified;
};

ProcessCgroups process_cgroups(pid_t pid)
{
    ProcessCgroups found;
    std::istringstream lines(read_file("/proc/" + std::to_string(pid) + "/cgroup"));
    for (std::string line; std::getline(lines, line);) {
        const size_t first = line.find(':'), second = line.find(':', first + 1);
        if (first == std::string::npos || second == std::string::npos)
            continue;
        const std::string controllers = "," + line.substr(first + 1, second - first - 1) + ",";
        const std::string path = line.substr(second + 1);
        if (line.compare(0, first, "0") == 0 && controllers == ",,")
            found.unified = path;
        else if (controllers.find(",cpu,") != std::string::npos)
            found.cpu_v1 = path;
    }
    return found;
}

// The limit of the cgroup at dir, if it has one.
bool read_limit(const std::string& dir, bool v1, CpuLimit& limit)
{
    if (v1) {
        const std::string quota = read_file(dir + "/cpu.cfs_quota_us");
        // -1: none.
        if (!parse_u64(quota.substr(0, quota.find('\n')), limit.quota_us))
            return false;
        const std::string period = read_file(dir + "/cpu.cfs_period_us");
        if (!parse_u64(period.substr(0, period.find('\n')), limit.period_us))
            return false;
    } else if (!parse_cpu_max(read_file(dir + "/cpu.max"), limit.quota_us, limit.period_us)) {
        return false;
    }
    limit.nr_throttled = parse_nr_throttled(read_file(dir + "/cpu.stat"));
    return true;
}

}  // namespace

bool parse_cpu_max(const std::string& text, uint64_t& quota_us, uint64_t& period_us)
{
    std::istringstream in(text);
    std::string quota, period;
    if (!(in >> quota >> period))
        return false;
    return parse_u64(quota, quota_us) && parse_u64(period, period_us);
}

uint64_t parse_nr_throttled(const std::string& text)
{
    std::istringstream lines(text);
    std::string key;
    uint64_t value = 0;
    while (lines >> key >> value)
        if (key == "nr_throttled")
            return value;
    return 0;
}

std::vector<CpuLimit> cpu_limits_of(pid_t pid)
{
    std::vector<CpuLimit> limits;
    const Mounts mounts = cgroup_mounts();
    const ProcessCgroups in = process_cgroups(pid);
    const bool v1 = !mounts.cpu_v1.empty() && !in.cpu_v1.empty();
    std::string cgroup = v1 ? in.cpu_v1 : in.unified;
    const std::string root = v1 ? mounts.cpu_v1 : mounts.unified;
    if (root.empty() || cgroup.empty() || cgroup[0] != '/')
        return limits;
    // From the process's cgroup up to the hierarchy's root, which has no limit.
    while (cgroup.size() > 1) {
        CpuLimit limit;
        limit.cgroup = cgroup;
        limit.dir = root + cgroup;
        if (read_limit(limit.dir, v1, limit))
            limits.push_back(std::move(limit));
        cgroup.erase(cgroup.rfind('/'));
        if (cgroup.empty())
            break;
    }
    return limits;
}

const CpuLimit* limit_that_throttled(const std::vector<CpuLimit>& before, const std::vector<CpuLimit>& after)
{
    std::map<std::string, uint64_t> was;
    for (const CpuLimit& l : before)
        was[l.dir] = l.nr_throttled;
    for (const CpuLimit& l : after) {
        const auto found = was.find(l.dir);
        if (found != was.end() && l.nr_throttled > found->second)
            return &l;
    }
    return after.empty() ? nullptr : &after.front();
}

std::optional<CpuLimit> CpuLimitWatch::throttled(pid_t pid)
{
    std::vector<CpuLimit> now = cpu_limits_of(pid);
    const auto before = seen_.find(pid);
    const CpuLimit* limit = limit_that_throttled(before != seen_.end() ? before->second : std::vector<CpuLimit>{}, now);
    std::optional<CpuLimit> found = limit ? std::optional<CpuLimit>(*limit) : std::nullopt;
    seen_[pid] = std::move(now);
    return found;
}

}  // namespace kdelay
