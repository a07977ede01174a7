// The live status line: drawn under a terminal, never in a pipe.
#include <csignal>
#include <pty.h>
#include <sys/wait.h>
#include <thread>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

// Runs argv with stdout and stderr on a pseudo-terminal; returns all it
// wrote. With interrupt_after, sends SIGINT then.
std::string run_on_pty(const std::vector<std::string>& argv,
                       std::chrono::milliseconds interrupt_after = std::chrono::milliseconds(0))
{
    int master = -1;
    pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
        std::vector<char*> args;
        for (const auto& a : argv)
            args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        _exit(127);
    }
    std::thread interrupter;
    if (interrupt_after.count() > 0)
        interrupter = std::thread([pid, interrupt_after] {
            std::this_thread::sleep_for(interrupt_after);
            kill(pid, SIGINT);
        });
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(master, buf, sizeof(buf))) > 0)  // EIO once the child is gone
        out.append(buf, static_cast<size_t>(n));
    close(master);
    waitpid(pid, nullptr, 0);
    if (interrupter.joinable())
        interrupter.join();
    return out;
}

const char* const kHint = "(Ctrl-C: stop and report)";

}  // namespace

TEST(StatusE2E, ShownOnATerminal)
{
    KD_REQUIRE_BPF();
    Process workload({kWorkload, "spin"});
    ASSERT_TRUE(workload.wait_for_output("ready", 5s));
    const std::string out =
        run_on_pty({kKdelay, "-p", std::to_string(workload.pid()), "--sample-time", "1.5"});
    EXPECT_NE(out.find(kHint), std::string::npos) << out;
    EXPECT_NE(out.find("kdelay: sample 1/1, sampling"), std::string::npos) << out;
    EXPECT_NE(out.find(" s left"), std::string::npos) << out;
    EXPECT_NE(out.find(" syscalls"), std::string::npos) << out;
    EXPECT_NE(out.find("# Sample dump"), std::string::npos) << out;
}

TEST(StatusE2E, WaitingForATriggerIsShown)
{
    KD_REQUIRE_BPF();
    Process workload({kWorkload, "spin"});
    ASSERT_TRUE(workload.wait_for_output("ready", 5s));
    // Nothing calls vhangup(): the run waits until interrupted.
    const std::string out = run_on_pty({kKdelay, "-p", std::to_string(workload.pid()), "--start-trigger",
                                        "t:syscalls:sys_enter_vhangup"},
                                       3s);
    EXPECT_NE(out.find("waiting for the start trigger"), std::string::npos) << out;
    EXPECT_NE(out.find("Interrupted while waiting for the start trigger"), std::string::npos) << out;
}

TEST(StatusE2E, NeverInAPipe)
{
    KD_REQUIRE_BPF();
    Process workload({kWorkload, "spin"});
    ASSERT_TRUE(workload.wait_for_output("ready", 5s));
    Result r = run({kKdelay, "-p", std::to_string(workload.pid()), "--sample-time", "1"}, 30s);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find(kHint), std::string::npos);
    EXPECT_EQ(r.err.find(kHint), std::string::npos);
    EXPECT_EQ(r.out.find('\r'), std::string::npos);
}
