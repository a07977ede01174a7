// A cgroup made for one test and removed after it, with the processes it
// was given moved back to the root.
#pragma once

#include <string>
#include <sys/types.h>

namespace kdtest {

// Where cgroup2 is mounted (mounted at /sys/fs/cgroup when it is nowhere,
// as in a test guest); empty when it cannot be.
std::string cgroup2_root();

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
