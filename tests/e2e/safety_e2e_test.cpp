// kdelay runs as root and prints what other processes chose: their thread
// names. Those are shown escaped wherever the text report names a task, so
// no name can forge a report line or drive root's terminal.
#include <sstream>
#include <string>

#include "e2e.h"

namespace kdtest {
namespace {

using namespace std::chrono_literals;

const std::string kNames = KD_NAMES_BIN;

// What each of kd_names' names must look like in the text report.
const std::string kForged = "\\x1b[31m\\x0a# STALL";
const std::string kSleeper = "kd\\xff\\xc2\\x9bsleep\\x5c";

// No raw byte of the hostile names reached the output, and no line of it
// is a forged one.
void expect_nothing_raw(const std::string& out)
{
    EXPECT_EQ(out.find('\x1b'), std::string::npos) << out;
    EXPECT_EQ(out.find('\xff'), std::string::npos) << out;
    EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos) << out;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        EXPECT_FALSE(line.rfind("# STALL", 0) == 0 && line.rfind("# STALL of ", 0) != 0) << "a forged line: " << line;
}

struct NamesRun {
    std::string out, err;
    int status = -1;
};

// kdelay with args on kd_names (its pid for {pid}, its child's for {child}).
void run_on_names(NamesRun& run, std::vector<std::string> args)
{
    Process w({kNames});
    ASSERT_TRUE(w.wait_for_output("ready", 5s)) << w.err();
    const std::string child = w.out().substr(w.out().find("child ") + 6, w.out().find('\n') - 6);
    std::vector<std::string> argv = {kKdelay};
    for (std::string& a : args) {
        if (a == "{pids}")
            a = std::to_string(w.pid()) + "," + child;
        argv.push_back(a);
    }
    Process kdelay(argv);
    run.status = kdelay.wait(kStartTimeout + 30s);
    run.out = kdelay.out();
    run.err = kdelay.err();
}

// The sample's text: the process lines, the threads' rows, the CPU's
// holder and the waker, each with the name escaped.
// A gtest: the text report.
// TAGS logic
TEST(SafetyE2E, HostileThreadNamesAreEscapedInTheSamplesText)
{
    KD_REQUIRE_BPF();
    NamesRun run;
    ASSERT_NO_FATAL_FAILURE(run_on_names(run, {"-p", "{pids}", "--sample-time", "2", "--budget"}));
    ASSERT_EQ(run.status, 0) << run.err;
    expect_nothing_raw(run.out);
    EXPECT_NE(run.out.find("(" + kForged + "m)"), std::string::npos) << "the process line:\n" << run.out;
    EXPECT_NE(run.out.find("(" + kForged + "c)"), std::string::npos) << "the child's process line:\n" << run.out;
    EXPECT_NE(run.out.find(" " + kSleeper + " "), std::string::npos) << "the thread's row:\n" << run.out;
    EXPECT_NE(run.out.find(kForged + "h ("), std::string::npos) << "CPU HELD BY:\n" << run.out;
    EXPECT_NE(run.out.find(kForged + "w ("), std::string::npos) << "WOKEN BY:\n" << run.out;
}

// A stall's header names its thread; the per-syscall lines name wakers.
// A gtest: the text report.
// TAGS logic
TEST(SafetyE2E, HostileThreadNamesAreEscapedInStallsAndSyscallEvents)
{
    KD_REQUIRE_BPF();
    NamesRun stall;
    ASSERT_NO_FATAL_FAILURE(run_on_names(stall, {"-p", "{pids}", "--stall", "200ms", "--duration", "3"}));
    ASSERT_EQ(stall.status, 0) << stall.err;
    expect_nothing_raw(stall.out);
    EXPECT_NE(stall.out.find(" (" + kSleeper + ") of process "), std::string::npos) << stall.out;

    NamesRun events;
    ASSERT_NO_FATAL_FAILURE(run_on_names(events, {"-p", "{pids}", "--sample-time", "1", "-s", "1000000", "--budget"}));
    ASSERT_EQ(events.status, 0) << events.err;
    expect_nothing_raw(events.out);
    EXPECT_NE(events.out.find("woken by " + kForged + "w ("), std::string::npos) << events.out;
}

}  // namespace
}  // namespace kdtest
