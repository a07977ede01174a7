// How kdelay picks its target when none is named (src/sys/process.cpp):
// only root's process, by Open vSwitch's pidfile or its exact name. On the
// main before it, any process whose name contained "ovs-vswitchd" was
// taken, another user's among them.
#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/process.h"

namespace kdelay {
namespace {

// A child named name, running as uid (0: as root), until the end of the test.
class NamedChild {
public:
    NamedChild(const char* name, uid_t uid)
    {
        int ready[2];
        if (pipe(ready) != 0)
            return;
        pid_ = fork();
        if (pid_ == 0) {
            prctl(PR_SET_NAME, name);
            if (uid && setresuid(uid, uid, uid) != 0)
                _exit(1);
            close(ready[0]);
            (void)!write(ready[1], "x", 1);
            pause();
            _exit(0);
        }
        close(ready[1]);
        char c;
        (void)!read(ready[0], &c, 1);
        close(ready[0]);
    }
    ~NamedChild()
    {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
};

bool holds(const std::vector<pid_t>& pids, pid_t pid) { return std::find(pids.begin(), pids.end(), pid) != pids.end(); }

TEST(NamedProcesses, OnlyRootsProcessOfTheExactNameIsACandidate)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to run a child as another user";
    const NamedChild roots("ovs-vswitchd", 0), users("ovs-vswitchd", 65534), lookalike("my-ovs-vswitchd", 0);
    const NamedProcesses found = processes_named("ovs-vswitchd");
    EXPECT_TRUE(holds(found.roots, roots.pid()));
    EXPECT_FALSE(holds(found.roots, users.pid())) << "another user's is never chosen";
    EXPECT_FALSE(holds(found.roots, lookalike.pid())) << "a name that only contains it";
    EXPECT_GE(found.others, 1u);
    EXPECT_TRUE(runs_as_root(roots.pid()));
    EXPECT_FALSE(runs_as_root(users.pid()));
}

TEST(NamedProcesses, APidfileCountsOnlyWhenItAndItsProcessAreRoots)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to run a child as another user";
    char dir[] = "/tmp/kdelay-pidfile-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string file = std::string(dir) + "/ovs-vswitchd.pid";
    const NamedChild roots("ovs-vswitchd", 0), users("ovs-vswitchd", 65534), other("ovsdb-server", 0);
    const auto write_pid = [&](pid_t pid, mode_t mode) {
        unlink(file.c_str());
        std::ofstream(file) << pid << "\n";
        chmod(file.c_str(), mode);
    };
    write_pid(roots.pid(), 0644);
    EXPECT_EQ(pid_from_pidfile(file, "ovs-vswitchd"), roots.pid());
    write_pid(roots.pid(), 0666);
    EXPECT_EQ(pid_from_pidfile(file, "ovs-vswitchd"), std::nullopt) << "a file others may write";
    write_pid(users.pid(), 0644);
    EXPECT_EQ(pid_from_pidfile(file, "ovs-vswitchd"), std::nullopt) << "another user's process";
    write_pid(other.pid(), 0644);
    EXPECT_EQ(pid_from_pidfile(file, "ovs-vswitchd"), std::nullopt) << "a process of another name";
    write_pid(roots.pid(), 0644);
    const std::string link = std::string(dir) + "/link.pid";
    ASSERT_EQ(symlink(file.c_str(), link.c_str()), 0);
    EXPECT_EQ(pid_from_pidfile(link, "ovs-vswitchd"), std::nullopt) << "a link";
    std::ofstream(file) << "12abc\n";
    EXPECT_EQ(pid_from_pidfile(file, "ovs-vswitchd"), std::nullopt) << "not a number";
    EXPECT_EQ(pid_from_pidfile(std::string(dir) + "/missing.pid", "ovs-vswitchd"), std::nullopt);
    unlink(link.c_str());
    unlink(file.c_str());
    rmdir(dir);
}

}  // namespace
}  // namespace kdelay
