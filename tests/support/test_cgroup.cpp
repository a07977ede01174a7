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
