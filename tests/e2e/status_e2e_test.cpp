// The live status line: drawn under a terminal, never in a pipe.
#include <csignal>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <thread>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

// Runs argv with stdout and stderr on a pseudo-terminal; returns all it
// wrote. With interrupt_after, sends SIGINT then.
// Runs argv on a terminal to its end; with interrupt_on, Ctrl-C once the
// output shows it (a compile takes 0.4 s here, 10-25 s in an emulated guest).
std::string run_on_pty(const std::vector<std::string>& argv, const std::string& interrupt_on = "")
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
    std::string out;
    char buf[4096];
    ssize_t n;
    bool interrupted = false;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(120);  // a hang guard
    for (;;) {
        pollfd pfd{master, POLLIN, 0};
        if (poll(&pfd, 1, 200) > 0) {
            if ((n = read(master, buf, sizeof(buf))) <= 0)  // EIO once the child is gone
                break;
            out.append(buf, static_cast<size_t>(n));
        }
        if (!interrupted && !interrupt_on.empty() && out.find(interrupt_on) != std::string::npos) {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            kill(pid, SIGINT);
            interrupted = true;
        }
        if (std::chrono::steady_clock::now() > give_up) {
            kill(pid, SIGKILL);
            break;
        }
    }
    close(master);
    waitpid(pid, nullptr, 0);
    return out;
}

const char* const kHint = "(Ctrl-C: stop and report)";

}  // namespace

// A gtest: a pseudo-terminal.
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

// A gtest: a pseudo-terminal.
TEST(StatusE2E, WaitingForATriggerIsShown)
{
    KD_REQUIRE_BPF();
    Process workload({kWorkload, "spin"});
    ASSERT_TRUE(workload.wait_for_output("ready", 5s));
    // Nothing calls vhangup(): the run waits until interrupted.
    const std::string out = run_on_pty({kKdelay, "-p", std::to_string(workload.pid()), "--start-trigger",
                                        "t:syscalls:sys_enter_vhangup"},
                                       "waiting for the start trigger");
    EXPECT_NE(out.find("waiting for the start trigger"), std::string::npos) << out;
    EXPECT_NE(out.find("Interrupted while waiting for the start trigger"), std::string::npos) << out;
}

// A gtest: the text output, byte by byte.
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
