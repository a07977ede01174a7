// A cgroup as a target: the directory a user names (--cgroup, --unit),
// checked and read from cgroupfs.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

struct CgroupTarget {
    std::string path;  // canonical, as given after resolving links
    uint64_t id = 0;   // the kernel's cgroup id: the directory's inode number
    // The v1 controller whose hierarchy path is in ("cpu", "memory", ...);
    // empty for cgroup2. eBPF finds a task's v1 cgroup through it.
    std::string controller;
    // The cgroup is followed by its name under its parent, which outlives
    // it: systemd makes a unit's cgroup anew, with a new id, at each start.
    // 0 for a hierarchy's root, which has no parent and never comes anew.
    uint64_t parent_id = 0;
    std::string name;
};

// Checks that path is a cgroup directory (cgroup2, or a v1 hierarchy with a
// controller) holding at least one process in it or below. Throws
// Error(Exit::usage) for what is not a cgroup, Exit::unavailable for what
// does not exist or is empty.
CgroupTarget resolve_cgroup(const std::string& path);

// The ids of a cgroup file of ids (cgroup.procs, cgroup.threads, tasks):
// one a line; 0 (a task outside the reader's PID namespace) and what is not
// an id are left out.
std::vector<pid_t> parse_cgroup_ids(const std::string& text);

// The cgroup of a unit of the system manager: the one directory named
// after it under the cgroup2 (or name=systemd) hierarchy whose every
// ancestor below the root is a slice, as the system manager lays its units
// out. A user manager's units (under user@UID.service) and a container's
// (under its scope) are not the system's, and never match: any user can
// make one of any name. NAME without a suffix means NAME.service. Throws
// Error(Exit::unavailable) when none or several match.
std::string find_unit_cgroup(const std::string& unit);

// Whether dir, relative to its hierarchy's root, is where the system
// manager puts a unit: each component but the last a slice.
bool system_unit_path(const std::string& relative);

// A cgroup target's directory, looked at again and again: systemd removes a
// unit's cgroup when the unit stops and makes it anew, with a new id, when
// it starts again.
class CgroupFollower {
public:
    enum class Change { none, gone, anew };
    explicit CgroupFollower(const CgroupTarget& target) : path_(target.path), id_(target.id) {}

    // What happened since the last look: gone once when the directory goes,
    // anew once for each new directory seen at path.
    Change look();
    uint64_t id() const { return id_; }

private:
    std::string path_;
    uint64_t id_;
    bool gone_ = false;
};

// The processes in the cgroup at path or below it, now; sorted.
std::vector<pid_t> cgroup_processes(const std::string& path);
// The threads in it or below it, now.
size_t cgroup_thread_count(const std::string& path);

}  // namespace kdelay
