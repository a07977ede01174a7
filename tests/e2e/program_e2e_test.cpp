// The kernel side is plain C configured by kd_config.h: each part says
// itself when it is on. These runs compile, load and attach the delay
// program through BCC on this kernel with every switch off and with every
// switch on, so a part that uses what another part left out fails here.
#include <unistd.h>

#include <filesystem>
#include <chrono>
#include <string>
#include <vector>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

bool has_tracepoint(const std::string& system_event)
{
    for (const char* root : {"/sys/kernel/tracing/events/", "/sys/kernel/debug/tracing/events/"})
        if (access((root + system_event).c_str(), F_OK) == 0)
            return true;
    return false;
}

// One sample of a shell that waits for a short sleep again and again (its
// thread makes syscalls and switches, and leaves the CPU to BCC's compile
// in a slow guest) with these switches: kdelay's exit status, and its
// output.
Result sample_with(const std::vector<std::string>& switches,
                   const std::vector<std::string>& mode = {"--sample-time", "0.3", "--sample-count", "1"})
{
    Process target({"/bin/sh", "-c", "while :; do sleep 0.05; done"});
    std::vector<std::string> argv = {kKdelay, "-p", std::to_string(target.pid())};
    argv.insert(argv.end(), mode.begin(), mode.end());
    argv.insert(argv.end(), switches.begin(), switches.end());
    // The compile took up to two minutes in an emulated guest under steal.
    return run(argv, 2 * kStartTimeout + 30s);
}

// The plug-in sections this kernel has the tracepoints of.
std::vector<std::string> every_section()
{
    std::vector<std::string> on;
    if (has_tracepoint("lock/contention_begin"))
        on.push_back("--locks");
    if (has_tracepoint("vmscan/mm_vmscan_memcg_reclaim_begin"))
        on.push_back("--reclaim");
    return on;
}

}  // namespace

// A gtest: the sections this kernel has tracepoints for, chosen at run time.
TEST(ProgramE2E, CompilesLoadsAndAttachesWithEverySwitchOff)
{
    KD_REQUIRE_BPF();
    const Result r = sample_with({"--skip-upcall-stats"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# Start sampling"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" sh "), std::string::npos) << r.out;
}

// A gtest: the sections this kernel has tracepoints for, chosen at run time.
// TAGS kernel sanitize
TEST(ProgramE2E, CompilesLoadsAndAttachesWithEverySwitchOn)
{
    KD_REQUIRE_BPF();
    // Triggers on tracepoints that fire all the time (BCC attaches one
    // program to a tracepoint): both trigger functions are compiled, loaded
    // and attached, and the window opens and closes.
    std::vector<std::string> on = {"--budget", "--histogram", "--syscall-events", "0",
                                   "--skip-syscall-poll-events", "--stack-trace-size", "1024",
                                   "--start-trigger", "t:timer:hrtimer_start",
                                   "--stop-trigger", "t:timer:hrtimer_cancel"};
    const std::vector<std::string> sections = every_section();
    on.insert(on.end(), sections.begin(), sections.end());
    const Result r = sample_with(on);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# Start sampling"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" sh "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[THREAD TIME BUDGET]"), std::string::npos) << r.out;
}

// A sample's timeline: sched_switch's second program, and the first's
// timeline calls, with every switch on but --histogram, which a sample's
// timeline refuses (together they passed the verifier's limit in Debian 13).
// A window this short may have no event to write: an empty trace is valid.
// A gtest: the sections this kernel has tracepoints for, chosen at run time.
// TAGS kernel sanitize
TEST(ProgramE2E, CompilesLoadsAndAttachesASamplesTimelineWithEverySectionOn)
{
    KD_REQUIRE_BPF();
    char trace[] = "/tmp/kdelay-trace-XXXXXX";
    const int fd = mkstemp(trace);
    ASSERT_GE(fd, 0);
    close(fd);
    std::vector<std::string> on = {"--timeline", trace, "--syscall-events", "0", "--skip-syscall-poll-events",
                                   "--stack-trace-size", "1024", "--start-trigger", "t:timer:hrtimer_start",
                                   "--stop-trigger", "t:timer:hrtimer_cancel"};
    const std::vector<std::string> sections = every_section();
    on.insert(on.end(), sections.begin(), sections.end());
    const Result r = sample_with(on);
    unlink(trace);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# Start sampling"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[THREAD TIME BUDGET]"), std::string::npos) << r.out;
}

// --stall's program framed by triggers (its trigger functions; the poll
// family's hooks are StallE2E's), and every map value's interval, with
// every section on, the timeline and the most wait stacks: on every kernel
// of the guests, whose timing is too loose for the timeline's own test.
// A gtest: the sections this kernel has tracepoints for, chosen at run time.
// TAGS kernel sanitize
TEST(ProgramE2E, CompilesLoadsAndAttachesForStallsWithEverySectionOn)
{
    KD_REQUIRE_BPF();
    char dir[] = "/tmp/kdelay-timeline-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    std::vector<std::string> on = every_section();
    for (const char* arg : {"--start-trigger", "t:timer:hrtimer_start", "--stop-trigger", "t:timer:hrtimer_cancel"})
        on.push_back(arg);
    const Result r = sample_with(on, {"--stall", "1ms", "--duration", "0.5", "--timeline", dir, "--wait-stacks", "8"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("# Start watching for stalls"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("# Stop watching"), std::string::npos) << r.out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        std::filesystem::remove(e.path());
    rmdir(dir);
}
