// --stall against planted stalls (tests/programs/kd_stall.cpp): each one
// reported once, as its thread's interval, with where its time went; the
// short intervals and the quiet thread never.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "e2e.h"
#include "test_cgroup.h"

using namespace std::chrono_literals;
using nlohmann::json;

namespace kdtest {
namespace {

const std::string kStall = KD_STALL_BIN;
const char* const kJsonStart = "\"marker\":\"start\"";
// kdelay dates each switch by the run queue's clock, the thread's CPU clock
// counts by its own: over a stall's switches they part by microseconds.
constexpr uint64_t kClockSlack = 1'000'000;

// A stall as the workload planted it.
struct Planted {
    uint32_t tid;
    uint64_t start_ns, end_ns, cpu_ns;
    uint64_t steal_ns;  // CPU 0's, around it, at tick resolution
};

std::vector<Planted> planted(const std::string& out)
{
    std::vector<Planted> all;
    std::istringstream in(out);
    for (std::string word; in >> word;)
        if (word == "stall") {
            Planted p{};
            in >> p.tid >> p.start_ns >> p.end_ns >> p.cpu_ns >> p.steal_ns;
            all.push_back(p);
        }
    return all;
}

// JSON lines of kdelay's output of type type (and marker kind).
std::vector<json> lines_of(const std::string& out, const std::string& type, const std::string& marker = "")
{
    std::vector<json> all;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] == '{') {
            json j = json::parse(line);
            if (j["type"] == type && (marker.empty() || j.value("marker", "") == marker))
                all.push_back(std::move(j));
        }
    return all;
}

std::vector<json> stalls(const std::string& out) { return lines_of(out, "stall"); }

uint64_t u64(const json& j, const char* key) { return j.at(key).get<uint64_t>(); }

// How many stalls kdelay's closing warning says it did not report.
uint64_t not_reported(const std::string& out)
{
    uint64_t n = 0;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("{", 0) == 0) {
            const json j = json::parse(line);
            const std::string text = j.value("text", "");
            if (j["type"] == "warning" && text.find(" stalls were not reported: ") != std::string::npos)
                n += std::stoull(text);
        }
    return n;
}

uint64_t blocked_in(const json& budget, const std::string& syscall)
{
    uint64_t ns = 0;
    for (const json& b : budget["blocked"])
        if (b["syscall"] == syscall)
            ns += u64(b, "ns");
    return ns;
}

uint64_t syscall_count(const json& thread, const std::string& name)
{
    for (const json& s : thread["syscalls"])
        if (s["name"] == name)
            return u64(s, "count");
    return 0;
}

// The report r is of the planted stall p's interval, but for the clock
// reads at each end and its report line, and the CPU waits between them:
// on a busy machine another task can hold the thread off between its
// syscall's return and its clock read (a compiler, 11 ms once), which the
// interval's READY time holds.
void expect_is_planted_interval(const json& r, const Planted& p)
{
    const uint64_t slack = 5'000'000 + u64(r["thread"]["budget"], "ready_ns");
    EXPECT_LE(u64(r, "start_ns"), p.start_ns) << r.dump();
    EXPECT_LE(p.start_ns - u64(r, "start_ns"), slack) << r.dump();
    EXPECT_GE(u64(r, "end_ns"), p.end_ns) << r.dump();
    EXPECT_LE(u64(r, "end_ns") - p.end_ns, slack) << r.dump();
}

// kdelay --stall on a kd_stall run, JSON; each planted stall matched to the
// one report of its thread that covers it, checked for what every stall
// report must be, and handed to check.
void expect_each_planted_stall_reported(const std::vector<std::string>& workload,
                                        const std::vector<std::string>& kdelay_args,
                                        const std::function<void(const Planted&, const json&)>& check,
                                        const std::function<bool(pid_t)>& prepare = {})
{
    std::vector<std::string> args = {"--stall", "200ms", "--format", "json"};
    args.insert(args.end(), kdelay_args.begin(), kdelay_args.end());
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(run_released(run, workload, args, 60s, 20s, kJsonStart, prepare));
    ASSERT_EQ(run.status, 0) << run.err;
    const std::vector<Planted> plants = planted(run.workload_out);
    const std::vector<json> reports = stalls(run.out);
    ASSERT_FALSE(plants.empty()) << run.workload_out;
    EXPECT_EQ(reports.size(), plants.size()) << "one report a planted stall, and nothing else:\n" << run.out;
    EXPECT_EQ(not_reported(run.out), 0u) << run.out;
    for (const json& r : reports) {
        const json& t = r["thread"];
        ASSERT_TRUE(t.contains("budget") && t["budget"].is_object()) << r.dump();
        const json& b = t["budget"];
        // The parts cover the interval.
        EXPECT_EQ(u64(b, "window_ns"), u64(r, "end_ns") - u64(r, "start_ns")) << r.dump();
        const uint64_t parts = u64(b, "running_ns") + u64(b, "ready_ns") + u64(b, "blocked_ns") +
                               u64(b, "stopped_ns") + u64(b, "not_alive_ns");
        EXPECT_LE(static_cast<uint64_t>(std::llabs(static_cast<long long>(u64(b, "window_ns") - parts))),
                  u64(b, "window_ns") / 100)
            << r.dump();
        EXPECT_GE(u64(r, "end_ns") - u64(r, "start_ns"), 200'000'000u) << r.dump();
    }
    for (const Planted& p : plants) {
        SCOPED_TRACE("stall planted from " + std::to_string(p.start_ns) + " to " + std::to_string(p.end_ns));
        const auto covering = std::find_if(reports.begin(), reports.end(), [&](const json& r) {
            return r["thread"]["tid"] == p.tid && u64(r, "start_ns") <= p.start_ns && u64(r, "end_ns") >= p.end_ns;
        });
        ASSERT_NE(covering, reports.end()) << run.out;
        const json& r = *covering;
        expect_is_planted_interval(r, p);
        check(p, r);
    }
}

// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS kernel logic
TEST(StallE2E, EachPlantedStallIsReportedOnceWithItsCpuTimeAndItsSleep)
{
    KD_REQUIRE_BPF();
    expect_each_planted_stall_reported({kStall, "poll", "3"}, {}, [](const Planted& p, const json& r) {
        const json& t = r["thread"];
        EXPECT_EQ(t["name"], "kd-staller");
        const json& b = t["budget"];
        // Running: the 100 ms of CPU time the workload measured, and what
        // ran outside its clock reads (at most the difference of the two
        // intervals' lengths), and what the thread's CPU clock leaves out:
        // interrupts, and the host's steal on its CPU (one tick more: less
        // than a tick of steal does not show in /proc/stat).
        EXPECT_GE(u64(b, "running_ns") + kClockSlack, p.cpu_ns) << r.dump();
        const uint64_t outside = (u64(r, "end_ns") - u64(r, "start_ns")) - (p.end_ns - p.start_ns);
        const uint64_t tick = 1'000'000'000 / static_cast<uint64_t>(sysconf(_SC_CLK_TCK));
        EXPECT_LE(u64(b, "running_ns"),
                  p.cpu_ns + outside + u64(b, "irq_ns") + p.steal_ns + tick + kClockSlack)
            << r.dump();
        EXPECT_GE(blocked_in(b, "clock_nanosleep") + kClockSlack, 150'000'000u) << r.dump();
        EXPECT_LE(blocked_in(b, "clock_nanosleep"), 175'000'000u) << r.dump();
        // The interval's own syscalls, not those of the short ones around it.
        EXPECT_EQ(syscall_count(t, "clock_nanosleep"), 1u) << r.dump();
        EXPECT_EQ(syscall_count(t, "poll"), 0u) << r.dump();
        ASSERT_FALSE(b["wakers"].empty()) << r.dump();
        EXPECT_EQ(b["wakers"][0]["kind"], "timer") << r.dump();
    });
}

// A stall's context switches are the kernel's own counts, as getrusage()
// gives them to the workload (and to Open vSwitch's warning): the one
// sleep, and whatever preempted it, between the workload's reads.
// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS kernel
TEST(StallE2E, AStallsContextSwitchesAreTheKernelsCounts)
{
    KD_REQUIRE_BPF();
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(run_released(run, {kStall, "poll", "2"}, {"--stall", "200ms", "--format", "json"}, 60s,
                                         20s, kJsonStart));
    ASSERT_EQ(run.status, 0) << run.err;
    std::vector<std::pair<long, long>> switches;
    std::istringstream in(run.workload_out);
    for (std::string word; in >> word;)
        if (word == "switches") {
            long v = 0, i = 0;
            in >> v >> i;
            switches.emplace_back(v, i);
        }
    const std::vector<json> reports = stalls(run.out);
    ASSERT_EQ(reports.size(), 2u) << run.out;
    ASSERT_EQ(switches.size(), 2u) << run.workload_out;
    for (size_t k = 0; k < reports.size(); ++k) {
        const json& r = reports[k];
        EXPECT_EQ(u64(r, "voluntary_switches"), static_cast<uint64_t>(switches[k].first)) << r.dump();
        // Outside the workload's reads, at each end: at most a preemption.
        EXPECT_GE(u64(r, "involuntary_switches"), static_cast<uint64_t>(switches[k].second)) << r.dump();
        EXPECT_LE(u64(r, "involuntary_switches"), static_cast<uint64_t>(switches[k].second) + 2) << r.dump();
    }
}

// READY blame is the sample's code over the same kernel paths.
// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS logic
TEST(StallE2E, AStallThatWaitsBehindASpinnerNamesItInReadyBlame)
{
    KD_REQUIRE_BPF();
    expect_each_planted_stall_reported({kStall, "poll", "2", "rival"}, {}, [](const Planted& p, const json& r) {
        const json& b = r["thread"]["budget"];
        // 100 ms of CPU time shared with a spinner on the same CPU: about as
        // long again waiting for it.
        EXPECT_GE(u64(b, "ready_ns"), 30'000'000u) << r.dump();
        ASSERT_FALSE(b["ready_by"].empty()) << r.dump();
        EXPECT_EQ(b["ready_by"][0]["comm"], "kd-rival") << r.dump();
        EXPECT_GE(u64(b, "running_ns") + kClockSlack, p.cpu_ns) << r.dump();
    });
}

// The process limited to 20% of a CPU: each stall's 100 ms of CPU time
// takes several periods, and the interval waits out the rest of each
// throttled. The kernel's side: the planted interval less the thread's CPU
// time and its 150 ms sleep is its wait for a CPU.
// A gtest: it makes a cgroup with a CPU limit and moves the workload into it.
// TAGS logic
TEST(StallE2E, AStallThrottledByItsCgroupsLimitSaysSoAndNamesTheLimit)
{
    KD_REQUIRE_BPF();
    const TestCgroup group(cpu_controller_root(), "kdtest-stall-limit");
    ASSERT_FALSE(group.path().empty()) << "no cgroup with the cpu controller to make";
    ASSERT_TRUE(limit_cpu(group.path(), 20000, 100000));
    expect_each_planted_stall_reported(
        {kStall, "poll", "2"}, {},
        [&](const Planted& p, const json& r) {
            const json& b = r["thread"]["budget"];
            ASSERT_TRUE(b["throttled_ns"].is_number()) << r.dump();
            const uint64_t waited = p.end_ns - p.start_ns - std::min(p.end_ns - p.start_ns, p.cpu_ns + 150'000'000);
            EXPECT_GE(u64(b, "ready_ns"), 150'000'000u) << r.dump();
            EXPECT_GE(static_cast<double>(u64(b, "throttled_ns")), 0.9 * static_cast<double>(u64(b, "ready_ns")))
                << r.dump();
            EXPECT_GE(static_cast<double>(u64(b, "throttled_ns")), 0.9 * static_cast<double>(waited) - 5e6)
                << r.dump();
            EXPECT_LE(u64(b, "throttled_ns"), waited + 10'000'000) << r.dump();
            EXPECT_EQ(u64(b, "queued_ns") + u64(b, "throttled_ns"), u64(b, "ready_ns"));
            ASSERT_TRUE(b["throttled_by"].is_object()) << r.dump();
            EXPECT_EQ(b["throttled_by"]["cgroup"], "/kdtest-stall-limit");
            EXPECT_EQ(b["throttled_by"]["cpu_max"], "20000 100000");
        },
        [&](pid_t pid) { return group.add(pid); });
}

// --timeline: each stall's Perfetto trace, decoded by protoc and checked
// (tests/timeline/check_trace.py: slices nest, flows have both ends, the
// states cover the interval), shows what was planted: the sleep as a
// blocked slice with the stack where it began, the spin as running, the
// wait behind the spinner as ready slices held by kd-rival, on whose track
// its runs are; the states add up to the report's budget. (Logic: as with
// the spinner's READY blame, an emulated guest's timing is too loose for
// the planted intervals; ProgramE2E loads the timeline's program there.)
// A gtest: it decodes the Perfetto trace kdelay wrote.
// TAGS logic
TEST(StallE2E, ATimelineShowsTheStallsSleepSpinAndWaitsBehindASpinner)
{
    KD_REQUIRE_BPF();
    char dir[] = "/tmp/kdelay-timeline-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    expect_each_planted_stall_reported({kStall, "poll", "2", "rival"}, {"--timeline", dir}, [](const Planted&,
                                                                                                const json& r) {
        ASSERT_TRUE(r["timeline"].is_string()) << r.dump();
        const Result check = run({"/usr/bin/python3", KD_TIMELINE_CHECK, KD_PERFETTO_PROTO, r["timeline"],
                                  std::to_string(u64(r, "start_ns")), std::to_string(u64(r, "end_ns"))},
                                 30s);
        ASSERT_EQ(check.status, 0) << check.out << check.err;
        const json c = json::parse(check.out);
        const json& states = c["states"];
        const json& b = r["thread"]["budget"];
        // Every state change kept (the spin's syscalls are too many to be):
        // the slices add up to the budget's parts, from the same events.
        for (const auto& [name, ns] : states.items())
            EXPECT_EQ(name.find("not kept"), std::string::npos) << states.dump();
        const auto state_ns = [&](const char* name) { return states.value(name, uint64_t{0}); };
        EXPECT_NEAR(double(state_ns("blocked in clock_nanosleep")), double(blocked_in(b, "clock_nanosleep")), 1e4)
            << states.dump();
        EXPECT_NEAR(double(state_ns("running")), double(u64(b, "running_ns")), 1e4) << states.dump();
        EXPECT_NEAR(double(state_ns("ready")), double(u64(b, "ready_ns")), 1e4) << states.dump();
        EXPECT_GT(u64(r, "timeline_events_not_kept"), 0u) << r.dump();
        EXPECT_GE(state_ns("ready"), 30'000'000u) << states.dump();
        bool rival_track = false, held_by_rival = false, sleep_stack = false;
        uint64_t rival = 0;
        for (const json& t : c["tracks"])
            if (t["name"] == "kd-rival")
                rival = t["uuid"].get<uint64_t>();
        for (const json& t : c["tracks"]) {
            // kd-rival's turns on the CPU, under its track.
            rival_track |= rival && t["parent"] == rival && !t["slices"].empty();
            for (const json& s : t["slices"]) {
                for (const auto& [key, value] : s["args"].items())
                    held_by_rival |= key.find("held by kd-rival") == 0;
                for (const json& f : s["frames"])
                    sleep_stack |= s["name"] == "blocked in clock_nanosleep" &&
                                   f.get<std::string>().find("nanosleep") != std::string::npos;
            }
        }
        EXPECT_TRUE(rival_track) << check.out;
        EXPECT_TRUE(held_by_rival) << check.out;
        EXPECT_TRUE(sleep_stack) << check.out;
        EXPECT_GE(c["flows"].get<uint64_t>(), 1u) << check.out;  // the timer's wakeup of the sleep
        // The report's longest waits: the sleep first, with its stack.
        ASSERT_FALSE(b["longest_waits"].empty()) << r.dump();
        EXPECT_EQ(b["longest_waits"][0]["syscall"], "clock_nanosleep") << r.dump();
        EXPECT_FALSE(b["longest_waits"][0]["frames"].empty()) << r.dump();
        unlink(r["timeline"].get<std::string>().c_str());
    });
    rmdir(dir);
}

// Back-to-back stalls (a poll that does not wait between them), and two
// with a short interval between: the second begins microseconds after the
// first ends, long before kdelay has read the first, and is recorded
// beside it; each is reported from its own values.
void expect_stall_pairs_reported(const std::string& mode)
{
    expect_each_planted_stall_reported({kStall, "poll", "2", mode}, {}, [](const Planted&, const json& r) {
        // Its own syscalls only: one sleep, not its neighbour's.
        EXPECT_EQ(syscall_count(r["thread"], "clock_nanosleep"), 1u) << r.dump();
        EXPECT_GE(blocked_in(r["thread"]["budget"], "clock_nanosleep") + kClockSlack, 150'000'000u) << r.dump();
        EXPECT_LE(blocked_in(r["thread"]["budget"], "clock_nanosleep"), 175'000'000u) << r.dump();
    });
}

// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS logic
TEST(StallE2E, BackToBackStallsAreEachReportedFromTheirOwnValues) { expect_stall_pairs_reported("twice"); }

// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS logic
TEST(StallE2E, StallsAShortIntervalApartAreEachReportedFromTheirOwnValues) { expect_stall_pairs_reported("gap"); }

// With kdelay stopped (SIGSTOP) through a train of three back-to-back
// stalls, the first two are kept for it in the two sets of keys; the third
// begins while both are unread, so it is only timed: counted in the
// warning, never reported from another's values.
// A gtest: it sums the stalls reported and those a warning says were not.
// TAGS logic
TEST(StallE2E, AStallBegunWhileTwoAreUnreadIsCountedNotLost)
{
    KD_REQUIRE_BPF();
    Process w({kStall, "poll", "1", "thrice"});
    ASSERT_TRUE(w.wait_for_output("ready", 5s)) << w.err();
    Process kdelay({kKdelay, "-p", std::to_string(w.pid()), "--stall", "200ms", "--format", "json"});
    ASSERT_TRUE(kdelay.wait_for_output(kJsonStart, kStartTimeout)) << kdelay.err();
    kdelay.signal(SIGSTOP);
    w.signal(SIGUSR1);
    const bool done = w.wait_for_output("done", 60s);
    kdelay.signal(SIGCONT);
    ASSERT_TRUE(done) << w.out();
    ASSERT_EQ(kdelay.wait(20s), 0) << kdelay.err();
    const std::vector<Planted> plants = planted(w.out());
    ASSERT_EQ(plants.size(), 3u) << w.out();
    const std::vector<json> reports = stalls(kdelay.out());
    ASSERT_EQ(reports.size(), 2u) << kdelay.out();
    EXPECT_EQ(not_reported(kdelay.out()), 1u) << kdelay.out();
    // Told as it happened too, before the closing warning, and on stderr.
    const std::string out = kdelay.out();
    const size_t lost = out.find("\"type\":\"lost\"");
    ASSERT_NE(lost, std::string::npos) << out;
    EXPECT_LT(lost, out.find("\"marker\":\"stop\"")) << out;
    const json loss = json::parse(out.substr(out.rfind('\n', lost) + 1, out.find('\n', lost) - out.rfind('\n', lost) - 1));
    EXPECT_EQ(loss["what"], "unread stalls") << loss.dump();
    EXPECT_EQ(u64(loss, "count"), 1u) << loss.dump();
    EXPECT_EQ(u64(loss, "total"), 1u) << loss.dump();
    EXPECT_NE(kdelay.err().find("kdelay: lost: 1 stalls not reported"), std::string::npos) << kdelay.err();
    for (size_t k = 0; k < reports.size(); ++k) {
        expect_is_planted_interval(reports[k], plants[k]);
        EXPECT_EQ(syscall_count(reports[k]["thread"], "clock_nanosleep"), 1u) << reports[k].dump();
    }
}

// Two threads whose loops interleave and whose stalls overlap, each
// interval framed by that thread's own USDT probes. (The guests compile
// and load the trigger functions in ProgramE2E.)
// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS logic
TEST(StallE2E, TriggersFrameEachThreadsOwnIntervals)
{
    KD_REQUIRE_BPF();
    expect_each_planted_stall_reported(
        {kStall, "usdt", "2"}, {"--start-trigger", "u:kdstall:loop_start", "--stop-trigger", "u:kdstall:loop_end"},
        [](const Planted& p, const json& r) {
            const json& b = r["thread"]["budget"];
            EXPECT_GE(u64(b, "running_ns") + kClockSlack, p.cpu_ns) << r.dump();
            EXPECT_GE(blocked_in(b, "clock_nanosleep"), 200'000'000u) << r.dump();
        });
}

// A start trigger whose stop was never hit (an exception past the
// uretprobe, a longjmp) begins the next interval afresh: no stall joins
// the two loops.
// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS logic
TEST(StallE2E, AStartTriggerWithoutItsStopBeginsANewInterval)
{
    KD_REQUIRE_BPF();
    expect_each_planted_stall_reported(
        {kStall, "usdt", "1", "lost"},
        {"--start-trigger", "u:kdstall:loop_start", "--stop-trigger", "u:kdstall:loop_end"},
        [](const Planted&, const json& r) { EXPECT_LE(u64(r, "end_ns") - u64(r, "start_ns"), 400'000'000u) << r.dump(); });
}

// A gtest: the text report.
// TAGS logic
TEST(StallE2E, TextNamesTheThreadAndTheIntervalAndShowsItsSections)
{
    KD_REQUIRE_BPF();
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(run_released(run, {kStall, "poll", "1"}, {"--stall", "0.2s"}, 60s, 20s, "# Start watching for stalls"));
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("# STALL of "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("kd-staller"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("[THREAD TIME BUDGET]"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("kd-quiet"), std::string::npos) << run.out;
}

// ---- the loop's wait (bpf/delay_abi.h, KD_LOOP_SITES) ----

// Polls that never wait, at call sites of their own inside the stall (Open
// vSwitch's latch_is_set() and an epoll_wait between upcall batches), do
// not split it: each stall is one interval from the loop's wait to the
// next, with those calls among its syscalls.
// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS kernel logic
TEST(StallE2E, CallsThatNeverBlockDoNotSplitTheLoopsInterval)
{
    KD_REQUIRE_BPF();
    expect_each_planted_stall_reported({kStall, "inner", "2"}, {}, [](const Planted& p, const json& r) {
        const json& t = r["thread"];
        EXPECT_EQ(syscall_count(t, "poll"), 4u) << r.dump();
        EXPECT_EQ(syscall_count(t, "epoll_wait"), 4u) << r.dump();
        EXPECT_GE(u64(t["budget"], "running_ns") + kClockSlack, p.cpu_ns) << r.dump();
    });
}

// The loop's own wait with timeout 0 (poll_block() after an immediate
// wake) never blocks, and still ends an interval, as Open vSwitch counts:
// two stalls of 250 ms, never one of 500.
// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS logic
TEST(StallE2E, AnImmediateWakeOfTheLoopsWaitEndsTheInterval)
{
    KD_REQUIRE_BPF();
    expect_each_planted_stall_reported({kStall, "immediate", "2"}, {}, [](const Planted& p, const json& r) {
        EXPECT_LE(u64(r, "end_ns") - u64(r, "start_ns"), p.end_ns - p.start_ns + 5'000'000) << r.dump();
    });
}

// SIGSTOP and SIGCONT, a tracer attaching (PTRACE_INTERRUPT) and
// detaching, and a freeze of its cgroup, while the thread blocks in its
// loop's wait (poll, then restart_syscall; ppoll and select, restarted;
// epoll_wait, EINTR): the wait goes on, and no stall. A stop inside an
// interval is its STOPPED.
// A gtest: each planted stall matched to the report that covers it, which needs a search over both lists.
// TAGS kernel logic
TEST(StallE2E, AStopInsideTheLoopsWaitIsNoStall)
{
    KD_REQUIRE_BPF();
    const std::string root = cgroup2_root();
    if (root.empty())
        GTEST_SKIP() << "no cgroup2 hierarchy here, and none can be mounted";
    TestCgroup cgroup(root, "kdelay-e2e-freeze-" + std::to_string(getpid()));
    ASSERT_FALSE(cgroup.path().empty());
    expect_each_planted_stall_reported({kStall, "stopped", "1", cgroup.path()}, {}, [](const Planted&, const json& r) {
        const json& b = r["thread"]["budget"];
        EXPECT_GE(u64(b, "stopped_ns"), 600'000'000u) << r.dump();
        EXPECT_LE(u64(b, "stopped_ns"), 1'000'000'000u) << r.dump();
    });
}

// Warnings in a JSON run's output whose text holds what.
size_t warnings_with(const std::string& out, const std::string& what)
{
    const std::vector<json> warnings = lines_of(out, "warning");
    return static_cast<size_t>(std::count_if(warnings.begin(), warnings.end(), [&](const json& j) {
        return j.value("text", "").find(what) != std::string::npos;
    }));
}

// A service restarted three times, each time in its cgroup made anew (as
// systemd does for a unit), with threads churning and stalls planted at
// random, the first of each life a few polls in: a watch of the cgroup
// follows it, reports each restart once, and each planted stall once.
// The kernel side's match by name is in every cgroup target's program,
// which the guests' cgroup tests load (this one passed on 7.2 and 5.10).
// A gtest: a cgroup whose processes are killed and started again.
// TAGS kernel logic
TEST(StallE2E, AWatchOfACgroupFollowsItsUnitsRestarts)
{
    KD_REQUIRE_BPF();
    const std::string root = cgroup2_root();
    if (root.empty())
        GTEST_SKIP() << "no cgroup2 hierarchy here, and none can be mounted";
    TestCgroup parent(root, "kdelay-e2e-restarts-" + std::to_string(getpid()));
    ASSERT_FALSE(parent.path().empty());
    constexpr int kLives = 3;
    Process service({KD_SERVICE_BIN, parent.path(), "kd-svc.service", std::to_string(kLives), "2500", "11"});
    ASSERT_TRUE(service.wait_for_output("ready", 5s)) << service.err();
    Process kdelay({kKdelay, "--cgroup", parent.path() + "/kd-svc.service", "--stall", "200ms", "--format", "json"});
    ASSERT_TRUE(kdelay.wait_for_output(kJsonStart, kStartTimeout)) << kdelay.err();
    service.signal(SIGUSR1);
    ASSERT_TRUE(service.wait_for_output("done", 60s)) << service.out();
    kdelay.wait_for_output("never", 300ms);  // the last stalls read
    kdelay.signal(SIGINT);
    ASSERT_EQ(kdelay.wait(20s), 0) << kdelay.err();

    const std::vector<json> restarts = lines_of(kdelay.out(), "marker", "restart");
    ASSERT_EQ(restarts.size(), static_cast<size_t>(kLives)) << kdelay.out();
    for (size_t i = 1; i < restarts.size(); ++i)
        EXPECT_NE(restarts[i]["cgroup_id"], restarts[i - 1]["cgroup_id"]) << kdelay.out();
    const std::vector<Planted> plants = planted(service.out());
    const std::vector<json> reports = stalls(kdelay.out());
    ASSERT_GE(plants.size(), static_cast<size_t>(kLives)) << service.out();
    EXPECT_EQ(reports.size(), plants.size()) << "one report a planted stall, and nothing else:\n" << kdelay.out();
    EXPECT_EQ(not_reported(kdelay.out()), 0u) << kdelay.out();
    EXPECT_TRUE(lines_of(kdelay.out(), "lost").empty()) << kdelay.out();
    for (const Planted& p : plants) {
        SCOPED_TRACE("stall planted from " + std::to_string(p.start_ns) + " to " + std::to_string(p.end_ns));
        const auto covering = std::count_if(reports.begin(), reports.end(), [&](const json& r) {
            return r["thread"]["tid"] == p.tid && u64(r, "start_ns") <= p.start_ns && u64(r, "end_ns") >= p.end_ns;
        });
        EXPECT_EQ(covering, 1) << kdelay.out();
    }
}

// 100,000 threads made and gone, each inside an interval when it exits
// (tids come round again many times at the default pid_max): entries and
// values of exited threads go, no map fills, and a stall of a thread made
// after them is reported once, with its syscalls.
// A gtest: it sums the stalls reported and those a warning says were not.
// TAGS logic
TEST(StallE2E, AWatchOutlivesAHundredThousandThreads)
{
    KD_REQUIRE_BPF();
    expect_each_planted_stall_reported({kStall, "churn", "100000"}, {}, [](const Planted&, const json& r) {
        EXPECT_EQ(r["thread"]["name"], "kd-late") << r.dump();
        EXPECT_EQ(syscall_count(r["thread"], "clock_nanosleep"), 1u) << r.dump();
    });
}

// With --timeline too: an exited thread's events go in the kernel, so the
// churn never fills the timeline map, and the stall after it has its trace.
// (Logic: the guests' timeline tests load the same exit path.)
// A gtest: it checks the timeline directory kdelay wrote.
// TAGS logic
TEST(StallE2E, ATimelineWatchOutlivesAHundredThousandThreads)
{
    KD_REQUIRE_BPF();
    char dir[] = "/tmp/kdelay-timeline-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(run_released(run, {kStall, "churn", "100000"},
                                         {"--stall", "200ms", "--format", "json", "--timeline", dir}, 60s, 20s,
                                         kJsonStart));
    ASSERT_EQ(run.status, 0) << run.err;
    const std::vector<json> reports = stalls(run.out);
    ASSERT_EQ(reports.size(), 1u) << run.out;
    EXPECT_EQ(reports[0]["thread"]["name"], "kd-late") << reports[0].dump();
    ASSERT_TRUE(reports[0]["timeline"].is_string()) << reports[0].dump();
    EXPECT_EQ(lines_of(run.out, "lost").size(), 0u) << run.out;
    EXPECT_EQ(warnings_with(run.out, "full"), 0u) << run.out;
    unlink(reports[0]["timeline"].get<std::string>().c_str());
    rmdir(dir);
}

// A thread exits 50 ms into an interval; 300 ms later another takes its
// tid (clone3's set_tid) and polls. Its entry is new: no stall of the
// dead thread's interval ending at the new one's poll.
// A gtest: the thread ids the workload printed, matched to the stalls.
// TAGS kernel logic
TEST(StallE2E, ANewThreadWithTheTidOfOneThatDiedMidIntervalStartsClean)
{
    KD_REQUIRE_BPF();
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(
        run_released(run, {kStall, "reuse"}, {"--stall", "200ms", "--format", "json"}, 30s, 20s, kJsonStart));
    ASSERT_EQ(run.status, 0) << run.err;
    ASSERT_NE(run.workload_out.find("reused "), std::string::npos) << run.workload_out;
    EXPECT_TRUE(stalls(run.out).empty()) << run.out;
    EXPECT_EQ(warnings_with(run.out, "full"), 0u) << run.out;
}

// The same in a sample with --budget: the tid's budget is of both threads,
// with the time between them not alive, and its parts add up to the window.
// A gtest: the thread ids the workload printed, matched to the budgets.
// TAGS kernel logic
TEST(StallE2E, InASampleAUsedAgainTidsBudgetAddsUpToTheWindow)
{
    KD_REQUIRE_BPF();
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(run_released(run, {kStall, "reuse"},
                                         {"--budget", "--sample-time", "5", "--format", "json"}, 30s, 20s, kJsonStart));
    ASSERT_EQ(run.status, 0) << run.err;
    std::istringstream words(run.workload_out.substr(run.workload_out.find("reused ")));
    std::string word;
    uint32_t tid = 0;
    ASSERT_TRUE(words >> word >> tid) << run.workload_out;
    bool seen = false;
    std::istringstream in(run.out);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("{", 0) != 0)
            continue;
        const json j = json::parse(line);
        if (j.value("type", "") != "sample")
            continue;
        for (const json& t : j["threads"]) {
            if (t["tid"] != tid)
                continue;
            seen = true;
            const json& b = t["budget"];
            const uint64_t parts = u64(b, "running_ns") + u64(b, "ready_ns") + u64(b, "blocked_ns") +
                                   u64(b, "stopped_ns") + u64(b, "not_alive_ns");
            EXPECT_LE(parts, u64(b, "window_ns") + u64(b, "window_ns") / 100) << t.dump();
            EXPECT_GE(parts + u64(b, "window_ns") / 100, u64(b, "window_ns")) << t.dump();
            EXPECT_GE(u64(b, "not_alive_ns"), 300'000'000u) << t.dump();  // the 300 ms between the two
        }
    }
    EXPECT_TRUE(seen) << run.out;
}

}  // namespace
}  // namespace kdtest
