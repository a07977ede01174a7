#include "test_cgroup.h"

#include <fstream>
#include <sstream>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kdtest {

std::string cgroup2_root()
{
    std::ifstream mounts("/proc/self/mounts");
    std::string source, target, type, rest;
    while (mounts >> source >> target >> type && std::getline(mounts, rest))
        if (type == "cgroup2")
            return target;
    if (mount("none", "/sys/fs/cgroup", "cgroup2", 0, nullptr) == 0)
        return "/sys/fs/cgroup";
    return "";
}

std::string cpu_controller_root()
{
    std::ifstream mounts("/proc/self/mounts");
    std::string source, target, type, options, rest;
    while (mounts >> source >> target >> type >> options && std::getline(mounts, rest))
        if (type == "cgroup" && ("," + options + ",").find(",cpu,") != std::string::npos)
            return target;
    const std::string root = cgroup2_root();
    if (root.empty())
        return "";
    std::ofstream(root + "/cgroup.subtree_control") << "+cpu" << std::flush;
    return root;
}

bool limit_cpu(const std::string& path, uint64_t quota_us, uint64_t period_us)
{
    std::ifstream v2(path + "/cpu.max");
    if (v2) {
        std::ofstream max(path + "/cpu.max");
        max << quota_us << " " << period_us << std::flush;
        return static_cast<bool>(max);
    }
    std::ofstream(path + "/cpu.cfs_period_us") << period_us << std::flush;
    std::ofstream quota(path + "/cpu.cfs_quota_us");
    quota << quota_us << std::flush;
    return static_cast<bool>(quota);
}

uint64_t throttled_ns(const std::string& path)
{
    for (const char* file : {"/cpu.stat.local", "/cpu.stat"}) {
        std::ifstream in(path + file);
        std::string key;
        uint64_t value = 0;
        while (in >> key >> value) {
            if (key == "throttled_time")  // v1: ns
                return value;
            if (key == "throttled_usec")  // cgroup2
                return value * 1000;
        }
    }
    return 0;
}

TestCgroup::TestCgroup(const std::string& root, const std::string& name) : root_(root)
{
    if (!root.empty() && mkdir((root + "/" + name).c_str(), 0755) == 0)
        path_ = root + "/" + name;
}

bool TestCgroup::add(pid_t pid) const
{
    std::ofstream procs(path_ + "/cgroup.procs");
    procs << pid << std::flush;
    return static_cast<bool>(procs);
}

TestCgroup::~TestCgroup()
{
    if (path_.empty())
        return;
    // The root of this hierarchy as seen by its mount: back there with any
    // process still inside, then the directory can go.
    std::ifstream procs(path_ + "/cgroup.procs");
    for (long pid; procs >> pid;) {
        std::ofstream root(root_ + "/cgroup.procs");
        root << pid << std::flush;
    }
    rmdir(path_.c_str());
}

}  // namespace kdtest
