// kdelay runs as root and prints what other processes chose: their thread
// names. Those are shown escaped wherever the text report names a task, so
// no name can forge a report line or drive root's terminal.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>
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

// A directory of its own under /tmp; gone, with its twins, at the end.
class ScratchDir {
public:
    ScratchDir()
    {
        char dir[] = "/tmp/kdelay-safety-XXXXXX";
        if (mkdtemp(dir))
            path_ = dir;
    }
    ~ScratchDir() { std::system(("rm -rf '" + path_ + "' '" + path_ + ".moved' '" + path_ + ".elsewhere'").c_str()); }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// On the main before it, each stall's trace was written by the directory's
// path, opened anew: a link swapped in after the watch began sent root's
// traces where its maker chose.
// A gtest: the swap made before the stall, so the race is driven, not hoped for.
// TAGS logic
TEST(SafetyE2E, ALinkSwappedInForTheTimelineDirectoryAfterTheWatchBeganSendsNothingElsewhere)
{
    KD_REQUIRE_BPF();
    const ScratchDir dir;
    ASSERT_FALSE(dir.path().empty());
    const std::string moved = dir.path() + ".moved", elsewhere = dir.path() + ".elsewhere";
    ASSERT_EQ(mkdir(elsewhere.c_str(), 0755), 0);
    Process w({KD_STALL_BIN, "poll", "1"});
    ASSERT_TRUE(w.wait_for_output("ready", 5s)) << w.err();
    Process kdelay({kKdelay, "-p", std::to_string(w.pid()), "--stall", "200ms", "--timeline", dir.path()});
    ASSERT_TRUE(kdelay.wait_for_output("# Start watching", kStartTimeout)) << kdelay.err();
    ASSERT_EQ(rename(dir.path().c_str(), moved.c_str()), 0);
    ASSERT_EQ(symlink(elsewhere.c_str(), dir.path().c_str()), 0);
    w.signal(SIGUSR1);
    ASSERT_TRUE(w.wait_for_output("done", 60s)) << w.out();
    EXPECT_EQ(kdelay.wait(20s), 0) << kdelay.err();
    EXPECT_NE(kdelay.out().find("# timeline: " + dir.path() + "/kdelay-stall-"), std::string::npos) << kdelay.out();
    EXPECT_EQ(std::system(("ls " + moved + "/kdelay-stall-*.pftrace >/dev/null 2>&1").c_str()), 0)
        << "the trace is in the directory the watch opened";
    EXPECT_NE(std::system(("ls " + elsewhere + "/* >/dev/null 2>&1").c_str()), 0) << "nothing went through the link";
}

// No file operation may hold a signal's exit: SIGTERM, as systemd stops the
// unit, ends the watch in each of its states, its metrics file written
// whole and nothing left beside it. On the main before it, a FIFO planted
// at the metrics file's fixed temporary name held kdelay in open(), its
// programs attached, past SIGTERM, until SIGKILL.
// A gtest: SIGTERM while compiling, while watching, and just as a stall is written.
// TAGS logic
TEST(SafetyE2E, SigtermEndsTheWatchInEachStateWhateverIsPlantedBesideItsFiles)
{
    KD_REQUIRE_BPF();
    const ScratchDir dir;
    ASSERT_EQ(chmod(dir.path().c_str(), 01777), 0);  // as /tmp: others may plant files, not move root's
    ASSERT_EQ(mkfifo((dir.path() + "/.kdelay.prom.tmp").c_str(), 0666), 0);
    ASSERT_EQ(mkdir((dir.path() + "/traces").c_str(), 0755), 0);
    for (const char* state : {"compiling", "watching", "writing a stall"}) {
        SCOPED_TRACE(state);
        Process w({KD_STALL_BIN, "poll", "3"});
        ASSERT_TRUE(w.wait_for_output("ready", 5s)) << w.err();
        Process kdelay({kKdelay, "-p", std::to_string(w.pid()), "--stall", "100ms", "--metrics",
                        dir.path() + "/kdelay.prom", "--timeline", dir.path() + "/traces"});
        if (std::string(state) != "compiling") {
            ASSERT_TRUE(kdelay.wait_for_output("# Start watching", kStartTimeout)) << kdelay.err();
            if (std::string(state) == "writing a stall") {
                w.signal(SIGUSR1);
                ASSERT_TRUE(w.wait_for_output("stall ", 10s)) << w.out();
            }
        }
        kdelay.signal(SIGTERM);
        const int status = kdelay.wait(5s);
        EXPECT_TRUE(status == 0 || status == 128 + SIGTERM) << status << kdelay.err();
        w.signal(SIGKILL);
        w.wait(5s);
    }
    // The last two wrote their counts at the end: whole, and nothing else
    // of kdelay's beside the planted FIFO.
    std::ifstream prom(dir.path() + "/kdelay.prom");
    const std::string text((std::istreambuf_iterator<char>(prom)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("kdelay_stalls_total"), std::string::npos) << text;
    EXPECT_EQ(std::system(("ls -A " + dir.path() + " | grep -v -x -e kdelay.prom -e .kdelay.prom.tmp -e traces").c_str()),
              256)
        << "a temporary file left behind";
}

// A gtest: a directory any user can write to, without the sticky bit, is refused before anything is loaded.
// TAGS logic
TEST(SafetyE2E, ADirectoryAnyUserCanWriteToIsRefusedForTheWatchsFiles)
{
    const ScratchDir dir;
    ASSERT_EQ(chmod(dir.path().c_str(), 0777), 0);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--timeline", dir.path()}, {"--profile-folded", dir.path()},
          {"--metrics", dir.path() + "/kdelay.prom"}}) {
        std::vector<std::string> argv = {kKdelay, "-p", std::to_string(getpid()), "--stall", "1s", "--duration", "1"};
        argv.insert(argv.end(), args.begin(), args.end());
        Process kdelay(argv);
        EXPECT_EQ(kdelay.wait(kStartTimeout + 10s), 73) << args[0];
        EXPECT_NE(kdelay.err().find(args[0] + ": any user can write to " + dir.path() + " and it has no sticky bit"),
                  std::string::npos)
            << kdelay.err();
    }
}

}  // namespace
}  // namespace kdtest
