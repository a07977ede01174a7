// A cgroup made for one test and removed after it, with the processes it
// was given moved back to the root.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>

namespace kdtest {

// Where cgroup2 is mounted (mounted at /sys/fs/cgroup when it is nowhere,
// as in a test guest); empty when it cannot be.
std::string cgroup2_root();

// Where the cpu controller's hierarchy is: v1's where it is mounted (this
// project's machines), else cgroup2's with the controller enabled for its
// children (the guests); empty when neither can be.
std::string cpu_controller_root();

// Limits the cgroup at path to quota_us of CPU time every period_us: v1's
// cpu.cfs_quota_us and cpu.cfs_period_us, or cgroup2's cpu.max.
bool limit_cpu(const std::string& path, uint64_t quota_us, uint64_t period_us);

// The kernel's count of the time the cgroup at path was throttled, in ns:
// summed over its run queues (one a CPU) that had tasks to run. The local
// count (6.6+, cpu.stat.local) is the group's queues' own time throttled,
// by its limit or an ancestor's; before it, cpu.stat's, of its own limit.
// Either grows by a throttle when it ends.
uint64_t throttled_ns(const std::string& path);

class TestCgroup {
public:
    // Makes root/name; path() is empty when that failed.
    TestCgroup(const std::string& root, const std::string& name);
    ~TestCgroup();
    TestCgroup(const TestCgroup&) = delete;
    TestCgroup& operator=(const TestCgroup&) = delete;

    const std::string& path() const { return path_; }
    // Moves every thread of pid in; false when the kernel refused.
    bool add(pid_t pid) const;

private:
    std::string root_, path_;
};

}  // namespace kdtest
