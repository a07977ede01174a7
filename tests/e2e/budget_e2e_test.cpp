// The per-thread time budget, end to end, against kd_budget: windows framed
// by USDT probes, with the kernel's own accounting read at their edges (each
// thread's CPU clock, and schedstat's wait for a CPU).
#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string kBudget = KD_BUDGET_BIN;

// A thread's run time (its CPU clock) and wait for a CPU (schedstat's
// run_delay) over a window, as the kernel counts them: at least *_lo, at
// most the figure (read around the probes: see kd_budget).
struct KernelView {
    uint64_t run_lo = 0, run_ns = 0, wait_lo = 0, wait_ns = 0;
    uint32_t tid = 0;
};

// One window as kd_budget saw it.
struct Window {
    uint64_t start_ns = 0, end_ns = 0, born_at = 0, born_by = 0, rival = 0, steal_ns = 0, steal_after_ns = 0;
    uint64_t cpu0_busy_ns = 0;  // all that ran on CPU 0, to a tick
    std::map<std::string, KernelView> threads;
};

std::vector<Window> windows(const std::string& out)
{
    std::vector<Window> all;
    uint64_t rival = 0;
    std::istringstream in(out);
    std::string word;
    while (in >> word) {
        if (word == "window") {
            Window w;
            long k;
            in >> k >> w.start_ns >> w.end_ns;
            all.push_back(w);
        } else if (word == "thread" && !all.empty()) {
            std::string name;
            KernelView v;
            in >> name >> v.tid >> v.run_lo >> v.run_ns >> v.wait_lo >> v.wait_ns;
            all.back().threads[name] = v;
        } else if (word == "steal" && !all.empty()) {
            in >> all.back().steal_ns;
        } else if (word == "cpu0_busy" && !all.empty()) {
            in >> all.back().cpu0_busy_ns;
        } else if (word == "steal_after" && !all.empty()) {
            in >> all.back().steal_after_ns;
        } else if (word == "born_at" && !all.empty()) {
            in >> all.back().born_at;
        } else if (word == "born_by" && !all.empty()) {
            in >> all.back().born_by;
        } else if (word == "rival") {
            in >> rival;
        }
    }
    for (Window& w : all)
        w.rival = rival;
    return all;
}

// How many windows each test samples: one, or $KDELAY_BUDGET_WINDOWS (the
// load harness, tests/load/run.sh, asks for many in one kdelay run, so that
// its rounds cost windows rather than kdelay's start-up).
size_t windows_per_test()
{
    const char* n = getenv("KDELAY_BUDGET_WINDOWS");
    return n && atoi(n) > 0 ? static_cast<size_t>(atoi(n)) : 1;
}

// kdelay on `count` windows of pid, as JSON.
Result run_kdelay_json(pid_t pid, size_t count, const std::vector<std::string>& extra)
{
    std::vector<std::string> argv = {kKdelay,
                                     "-p",
                                     std::to_string(pid),
                                     "--format",
                                     "json",
                                     "--budget",
                                     "--skip-upcall-stats",
                                     "--start-trigger",
                                     "u:kdtest:window_start",
                                     "--stop-trigger",
                                     "u:kdtest:window_end",
                                     "--sample-count",
                                     std::to_string(count)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    // Each window of kd_budget takes at most 1.2 s. A start in the 5.10
    // guest took 107 and 129 s on a slow day (BCC's compile under TCG).
    return run(argv, 2 * kStartTimeout + 30s + std::chrono::seconds(2 * count));
}

struct Sampled {
    Window window;   // the one kdelay sampled
    json threads;    // the sample's threads, by name
    json events;     // the sample's syscall events
};

// Samples windows of kd_budget MODE with kdelay --format json, and finds each
// in the workload's output by its start trigger's timestamp.
std::vector<Sampled> sample_windows(const std::string& mode, const std::vector<std::string>& extra = {})
{
    const size_t count = windows_per_test();
    std::vector<Sampled> runs;
    std::vector<uint64_t> triggers;
    const SchedStatsOn schedstats;
    Process workload({kBudget, mode});
    EXPECT_TRUE(workload.wait_for_output("ready", 5s));
    Result r = run_kdelay_json(workload.pid(), count, extra);
    EXPECT_EQ(r.status, 0) << r.err;
    uint64_t trigger_ns = 0;
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);) {
        const json j = json::parse(l);
        if (j["type"] == "marker" && j["marker"] == "start" && j.contains("trigger_ns"))
            trigger_ns = j["trigger_ns"];
        if (j["type"] == "sample") {
            Sampled run;
            for (const auto& t : j["threads"])
                run.threads[t["name"].get<std::string>()] = t;
            run.events = j["syscall_events"];
            EXPECT_NE(trigger_ns, 0u) << r.out;
            runs.push_back(run);
            triggers.push_back(trigger_ns);
        }
    }
    EXPECT_EQ(runs.size(), count) << r.out;
    // The workload prints a window after its end; wait for the last one.
    for (int i = 0; i < 50; ++i) {
        const std::vector<Window> seen = windows(workload.out());
        for (size_t n = 0; n < runs.size(); ++n)
            for (const Window& w : seen)
                // The probe fires just after the workload reads its clock: 5.5 ms
                // later in an emulated guest. Windows are over 1 s apart.
                if (w.start_ns <= triggers[n] && triggers[n] - w.start_ns < 100'000'000)
                    runs[n].window = w;
        if (runs.empty() || runs.back().window.end_ns)
            break;
        workload.wait_for_output("never", 100ms);
    }
    for (size_t n = 0; n < runs.size(); ++n)
        EXPECT_NE(runs[n].window.end_ns, 0u) << "no window starts at " << triggers[n] << "\n" << workload.out();
    return runs;
}

uint64_t u64(const json& j, const char* key) { return j.at(key).get<uint64_t>(); }

// The parts cover the window: what they miss is shown, and under 1%.
void expect_adds_up(const json& b, const std::string& name)
{
    const uint64_t parts = u64(b, "running_ns") + u64(b, "ready_ns") + u64(b, "blocked_ns") +
                           u64(b, "stopped_ns") + u64(b, "not_alive_ns");
    EXPECT_EQ(static_cast<int64_t>(u64(b, "window_ns")) - static_cast<int64_t>(parts),
              b.at("remainder_ns").get<int64_t>())
        << name;
    EXPECT_LE(std::abs(b.at("remainder_ns").get<int64_t>()), static_cast<int64_t>(u64(b, "window_ns") / 100))
        << name << ": " << b.dump();
}

// The budget of one thread of the sample, checked to add up to its window;
// an empty object, after a failure, when the thread is not in the sample.
json budget_of(const Sampled& r, const std::string& name)
{
    if (!r.threads.contains(name) || !r.threads.at(name).contains("budget")) {
        ADD_FAILURE() << name << " has no budget in the sample: " << r.threads.dump();
        return json::object();
    }
    const json& b = r.threads.at(name).at("budget");
    expect_adds_up(b, name);
    return b;
}

// In an emulated guest, waking an idle CPU takes a millisecond, and
// schedstat and kdelay start that wait at different points of the wakeup
// (the 6.12 guest showed 1.0 ms READY against schedstat's 0); there the
// floor is 5 ms.
double absolute_tolerance() { return in_emulated_guest() ? 5e6 : 1e6; }

// The kernel charges a task's CPU time up to its accounting point inside
// __schedule(); kdelay, up to the sched_switch tracepoint a little later.
// The gap is a microsecond on hardware, but under emulation it is tens of
// microseconds a switch, and two spinners sharing a CPU switch hundreds of
// times a second: the 6.1 guest once showed RUNNING 5.3% under the kernel.
double relative_tolerance() { return in_emulated_guest() ? 0.08 : 0.05; }

// kdelay's window runs from the start probe to the end probe, so it lies
// inside the workload's, which reads its clock before the one and after the
// other. The gap is two probe hits: microseconds here, but each costs about
// 5 ms in an emulated guest, plus any wait for the CPU around them (the 6.1
// guest once showed 9.6 ms in all).
void expect_window_inside(uint64_t kdelay_ns, uint64_t workload_ns, const std::string& name)
{
    const uint64_t slack = in_emulated_guest() ? 30'000'000 : 2'000'000;
    EXPECT_LE(kdelay_ns, workload_ns) << name;
    EXPECT_GE(kdelay_ns + slack, workload_ns) << name;
}

// For the load harness (tests/load/run.sh): each comparison with the
// kernel, appended to $KDELAY_DEVIATION_LOG as "TEST WHAT KDELAY LO HI
// STEAL" (CPU 0's steal over the window, for RUNNING).
void log_deviation(const std::string& what, uint64_t kdelay_ns, uint64_t lo_ns, uint64_t hi_ns, uint64_t steal_ns)
{
    const char* path = getenv("KDELAY_DEVIATION_LOG");
    if (!path)
        return;
    std::ofstream log(path, std::ios::app);
    std::string label = what;
    std::replace(label.begin(), label.end(), ' ', '/');
    log << testing::UnitTest::GetInstance()->current_test_info()->name() << " " << label << " " << kdelay_ns << " "
        << lo_ns << " " << hi_ns << " " << steal_ns << "\n";
}

// kdelay against the kernel's accounting, which lies between lo_ns and
// hi_ns: within 5% or 1 ms of that range (8% or 5 ms in an emulated guest).
// RUNNING may also exceed the kernel's run time by the host's steal of the
// CPU (steal_ns, seen at 10 ms resolution, so one more tick): the kernel
// leaves stolen time out of a task's run time, while the task held the vCPU.
void expect_matches_kernel(uint64_t kdelay_ns, uint64_t lo_ns, uint64_t hi_ns, const std::string& what,
                           uint64_t steal_ns)
{
    log_deviation(what.substr(0, what.find(':')), kdelay_ns, lo_ns, hi_ns, steal_ns);
    static const double floor_ns = absolute_tolerance();
    const double stolen = steal_ns ? static_cast<double>(steal_ns) + 10e6 : 0.0;
    if (kdelay_ns > hi_ns && stolen > 0)
        hi_ns = std::min<uint64_t>(kdelay_ns, hi_ns + static_cast<uint64_t>(stolen));
    const double tolerance = std::max(relative_tolerance() * static_cast<double>(hi_ns), floor_ns);
    const double k = static_cast<double>(kdelay_ns);
    EXPECT_TRUE(k + tolerance >= static_cast<double>(lo_ns) && k <= static_cast<double>(hi_ns) + tolerance)
        << "kdelay's " << kdelay_ns << " ns is more than " << tolerance << " ns outside the kernel's " << lo_ns
        << " to " << hi_ns << " ns: " << what << " (CPU 0 steal " << steal_ns << " ns)";
}

void expect_ready_matches_kernel(const Sampled& r, const std::string& name, const json& b);


// The thread's RUNNING (in budget b) against the kernel's run time, its CPU
// clock. A failure tells kdelay's own RUN section and CPU 0's steal until
// 200 ms after the window: a vCPU the host stops at the window's end shows
// its steal only when it runs again.
void expect_running_matches_kernel(const Sampled& r, const std::string& name, const json& b)
{
    const KernelView& k = r.window.threads.at(name);
    const json& thread = r.threads.at(name);
    std::ostringstream what;
    what << name << " running: " << b.dump() << " (run section " << thread.value("run", json()).dump()
         << "; CPU 0 steal until 200 ms after " << r.window.steal_after_ns << " ns)";
    expect_matches_kernel(u64(b, "running_ns"), k.run_lo, k.run_ns, what.str(), r.window.steal_ns);
}

// Every worker's RUNNING and READY against the kernel's run time and
// run-queue wait over the same window.
void expect_agrees_with_kernel(const Sampled& r)
{
    for (const auto& [name, k] : r.window.threads) {
        if (k.run_ns + k.wait_ns == 0)
            continue;  // not read (kd-born), or schedstat off
        ASSERT_TRUE(r.threads.contains(name)) << name << " is not in the sample";
        const json& b = r.threads.at(name).at("budget");
        expect_running_matches_kernel(r, name, b);
        expect_ready_matches_kernel(r, name, b);
    }
}

// The "ns" of the first entry of list that matches, or 0.
template <class Match>
uint64_t ns_of_first(const json& list, Match&& match)
{
    for (const auto& entry : list)
        if (match(entry))
            return u64(entry, "ns");
    return 0;
}

uint64_t blocked_in(const json& b, const std::string& syscall)
{
    return ns_of_first(b["blocked"], [&](const json& part) { return part["syscall"] == syscall; });
}

// kdelay's READY (in budget b) against the kernel's run-queue wait. The
// kernel adds a wait to run_delay when it ends, whole: the wait still open
// at the window's end (READY blame's "open") is in kdelay's READY and not
// in the kernel's, and the part before the window of a wait under way when
// it opened (ready_before_window_ns) is in the kernel's and not in READY.
// Under load either runs to tens of ms.
void expect_ready_matches_kernel(const Sampled& r, const std::string& name, const json& b)
{
    const uint64_t open = ns_of_first(b["ready_by"], [](const json& h) { return h["kind"] == "open"; });
    const uint64_t ended = u64(b, "ready_ns") - open + u64(b, "ready_before_window_ns");
    const KernelView& k = r.window.threads.at(name);
    expect_matches_kernel(ended, k.wait_lo, k.wait_ns, name + " ready: " + b.dump(), 0);
}

}  // namespace

// Thousands of wakeups a second preempt the spinners; after each, the kernel
// skips the run queue's clock update and dates the switch at the wakeup,
// microseconds before the tracepoint. Dated at the tracepoint, the spinners'
// RUNNING ran 44-60 ms (13-17%) over schedstat's a window on this host.
// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line.
// TAGS kernel rt flood
TEST(BudgetE2E, SpinnersPreemptedByWakeupsSplitTheWindowAsTheKernelDoes)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("flooded")) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        ASSERT_EQ(r.window.threads.size(), 2u);
        expect_agrees_with_kernel(r);
        for (const char* name : {"spin-a", "spin-b"}) {
            ASSERT_GT(r.window.threads.at(name).wait_ns, 0u) << "schedstat is off";
            const json b = budget_of(r, name);
            EXPECT_GT(ns_of_first(b["ready_by"], [](const json& e) { return e["comm"] == "kd-sink"; }), 0u)
                << b.dump();
        }
    }
}

// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line.
// TAGS kernel rt
TEST(BudgetE2E, SleeperIsBlockedInClockNanosleepRunsItsSpinsAndIsWokenByItsTimer)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("sleeper")) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        const json b = budget_of(r, "kd-sleeper");
        // 5 x 100 ms asleep (a sleep may overrun by a few ms, more in an
        // emulated guest), 5 x 20 ms of its own CPU time spinning.
        EXPECT_GE(blocked_in(b, "clock_nanosleep"), 495'000'000u) << b.dump();
        EXPECT_LE(blocked_in(b, "clock_nanosleep"), 575'000'000u) << b.dump();
        expect_running_matches_kernel(r, "kd-sleeper", b);
        expect_ready_matches_kernel(r, "kd-sleeper", b);
        EXPECT_GE(u64(b, "running_ns"), 95'000'000u) << b.dump();
        // Each sleep is ended by its timer, in interrupt context: no task woke it.
        ASSERT_FALSE(b["wakers"].empty()) << b.dump();
        EXPECT_EQ(b["wakers"][0]["kind"], "timer") << b.dump();
        EXPECT_TRUE(b["wakers"][0]["comm"].is_null()) << b.dump();
        // Five sleeps, each ended by its timer. Under load one wakeup can go
        // unseen: a timer that fires while another BPF program runs on that CPU
        // has its sched_wakeup program skipped by BPF's recursion guard (seen in
        // CI with a build running beside it: 4 of 5). The sleep is still BLOCKED
        // in clock_nanosleep; only its waker is not known.
        EXPECT_GE(b["wakers"][0]["count"].get<uint64_t>(), 4u) << b.dump();
        EXPECT_GE(u64(b["wakers"][0], "blocked_ns"), 390'000'000u) << b.dump();
    }
}

// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line.
// TAGS kernel rt logic
TEST(BudgetE2E, ThreadBornMidWindowShowsItsTimeNotAlive)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("born")) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        expect_agrees_with_kernel(r);
        const json b = budget_of(r, "kd-born");
        ASSERT_NE(r.window.born_at, 0u);
        ASSERT_GE(r.window.born_by, r.window.born_at);
        const uint64_t before_birth = r.window.born_at - r.window.start_ns;
        // kdelay's window opens when the start probe has trapped, some time after
        // the workload read start_ns (70 us was seen in the 6.12-rt guest), and
        // closes before end_ns: that lag is at most the difference of the widths.
        const uint64_t window = r.window.end_ns - r.window.start_ns;
        const uint64_t window_ns = u64(b, "window_ns");
        ASSERT_LE(window_ns, window) << b.dump();
        const uint64_t start_lag_max = window - window_ns;
        // Born when the clone wakes it up: after born_at, and before
        // pthread_create returns (born_by), however long that takes on a
        // loaded machine.
        EXPECT_GE(u64(b, "not_alive_ns") + start_lag_max, before_birth) << b.dump();
        EXPECT_LE(u64(b, "not_alive_ns"), r.window.born_by - r.window.start_ns) << b.dump();
        // It lived the rest of the window asleep on its pipe.
        EXPECT_GT(blocked_in(b, "read"), 150'000'000u) << b.dump();
    }
}

// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line.
// TAGS kernel rt logic
TEST(BudgetE2E, ThreadAsleepAllWindowIsBlockedInItsSyscallForAllOfIt)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("asleep")) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        expect_agrees_with_kernel(r);
        const json b = budget_of(r, "kd-asleep");
        EXPECT_EQ(blocked_in(b, "read"), u64(b, "window_ns")) << b.dump();
        EXPECT_EQ(b["source"], "iterator") << b.dump();  // the kernel has a task iterator (5.8+)
    }
}

// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line.
// TAGS kernel rt
TEST(BudgetE2E, TheThreadThatReleasesAFutexIsNamedAsTheWakerOfEachSlowFutex)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("wake", {"--syscall-events", "10000000", "--stack-trace-size", "0"})) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        expect_agrees_with_kernel(r);
        const json b = budget_of(r, "kd-waiter");
        ASSERT_FALSE(b["wakers"].empty()) << b.dump();
        const json& top = b["wakers"][0];
        EXPECT_EQ(top["kind"], "task") << b.dump();
        EXPECT_EQ(top["comm"], "kd-waker") << b.dump();
        EXPECT_EQ(top["tid"].get<uint32_t>(), r.window.threads.at("kd-waker").tid) << b.dump();
        // A wake every 50 ms of a 300 ms window; each ends the wait before it.
        EXPECT_GE(top["count"].get<uint64_t>(), 4u) << b.dump();
        EXPECT_NEAR(static_cast<double>(u64(top, "blocked_ns")), static_cast<double>(blocked_in(b, "futex")), 60e6)
            << b.dump();
        // Each slow futex event names the same waker.
        const uint32_t waiter = r.window.threads.at("kd-waiter").tid;
        const std::string waker = "kd-waker (";
        size_t futexes = 0;
        for (const auto& e : r.events) {
            if (e["tid"] != waiter || e["syscall"] != "futex")
                continue;
            ++futexes;
            ASSERT_TRUE(e["waker"].is_string()) << e.dump();
            EXPECT_EQ(e["waker"].get<std::string>().rfind(waker, 0), 0u) << e.dump();
            EXPECT_NE(e["waker"].get<std::string>().find("/" + std::to_string(r.window.threads.at("kd-waker").tid) + ")"),
                      std::string::npos)
                << e.dump();
        }
        // A wake every 50 ms of a 300 ms window: each ends a wait over 10 ms.
        // In an emulated guest the waker's round takes about 70 ms (7.2's
        // guest under CI), so the window holds three whole waits.
        EXPECT_GE(futexes, in_emulated_guest() ? 3u : 4u) << r.events.dump();
    }
}

namespace {

// The ns of READY time the thread blamed on the task tid.
uint64_t blamed_on(const json& b, uint32_t tid)
{
    return ns_of_first(b["ready_by"], [&](const json& h) { return h["kind"] == "task" && h["tid"] == tid; });
}

// The READY time of the waits that ended in the window: the ones blamed.
double ended_waits(const json& b)
{
    const uint64_t open = ns_of_first(b["ready_by"], [](const json& h) { return h["kind"] == "open"; });
    return static_cast<double>(u64(b, "ready_ns") - open);
}

// Under the load harness (tests/load/run.sh), the load's tasks take their
// share of every wait, so the shares below hold only on a quiet machine.
// What holds under any load: the named rivals are there, and the blame adds
// up to the READY time it splits.
bool under_load() { return getenv("KDELAY_UNDER_LOAD") != nullptr; }

// Of what ran on CPU 0 while a thread that ran self_ns there waited, the
// share of the threads that ran others_ns: the rest went to whatever else
// the machine ran there (a package being unpacked, a shell), which READY
// blame names too. /proc/stat counts in ticks; the threads' own clocks
// bound it from below.
double share_of_cpu0(const Window& w, uint64_t others_ns, uint64_t self_ns)
{
    const uint64_t busy = std::max(w.cpu0_busy_ns, others_ns + self_ns);
    return busy > self_ns ? std::min(1.0, static_cast<double>(others_ns) / static_cast<double>(busy - self_ns)) : 1.0;
}

// A wait is blamed when it ends; one still open when the window closed is
// its own entry ("open"), so the blame adds up to READY: exactly but for
// the kernel's skipped runs, which only the load harness makes.
void expect_blame_adds_up(const json& b)
{
    uint64_t sum = 0;
    for (const auto& h : b["ready_by"])
        sum += u64(h, "ns");
    const double ready = static_cast<double>(u64(b, "ready_ns"));
    const double slack = std::max(0.005 * ready, under_load() ? 10e6 : 1e6);
    EXPECT_NEAR(static_cast<double>(sum), ready, slack) << b.dump();
}

}  // namespace

// Two spinners pinned to one CPU: RUNNING and READY as the kernel has them,
// and each one's wait blamed on the other.
// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line.
// TAGS kernel rt
TEST(BudgetE2E, TwoSpinnersOnOneCpuSplitTheWindowAsTheKernelDoesAndWaitForEachOther)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("spinners")) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        const uint64_t window = r.window.end_ns - r.window.start_ns;
        for (const auto& [name, other] : {std::pair{"spin-a", "spin-b"}, std::pair{"spin-b", "spin-a"}}) {
            const json b = budget_of(r, name);
            expect_window_inside(u64(b, "window_ns"), window, name);
            EXPECT_EQ(u64(b, "blocked_ns"), 0u) << b.dump();
            const KernelView& k = r.window.threads.at(name);
            ASSERT_GT(k.run_ns + k.wait_ns, 0u) << "schedstat is off";
            expect_running_matches_kernel(r, name, b);
            expect_ready_matches_kernel(r, name, b);
            ASSERT_GT(u64(b, "ready_ns"), 50'000'000u) << b.dump();
            expect_blame_adds_up(b);
            EXPECT_EQ(blamed_on(b, k.tid), 0u) << name << " never waits for itself: " << b.dump();
            const double share = share_of_cpu0(r.window, r.window.threads.at(other).run_ns, k.run_ns);
            EXPECT_GE(static_cast<double>(blamed_on(b, r.window.threads.at(other).tid)),
                      (under_load() ? 0.01 : 0.9 * share) * ended_waits(b))
                << name << " waits for " << other << " (" << share << " of what else ran on CPU 0): " << b.dump();
            // Under the load harness's CPU hogs, the one pinned to CPU 0 takes
            // its turns there too, and READY blame says so.
            if (getenv("KDELAY_LOAD_HOG_ON_CPU0")) {
                EXPECT_GT(ns_of_first(b["ready_by"], [](const json& e) { return e["comm"] == "kd-load-cpu0"; }), 0u)
                    << b.dump();
            }
        }
    }
}

// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line.
// TAGS kernel rt logic
TEST(BudgetE2E, ASpinnerOfAnotherProcessIsNamedWithItsPid)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("rival")) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        expect_agrees_with_kernel(r);
        ASSERT_NE(r.window.rival, 0u);
        const json b = budget_of(r, "kd-victim");
        ASSERT_FALSE(b["ready_by"].empty()) << b.dump();
        expect_blame_adds_up(b);
        // The rival's entry: the first one on a quiet machine.
        const json* rival = nullptr;
        for (const auto& h : b["ready_by"])
            if (!rival && h["comm"] == "kd-rival")
                rival = &h;
        ASSERT_NE(rival, nullptr) << b.dump();
        if (!under_load()) {
            EXPECT_EQ(&b["ready_by"][0], rival) << b.dump();
        }
        EXPECT_EQ((*rival)["kind"], "task") << b.dump();
        EXPECT_EQ((*rival)["pid"].get<uint64_t>(), r.window.rival) << b.dump();
        EXPECT_GE(static_cast<double>(u64(*rival, "ns")),
                  (under_load() ? 0.01 : 0.9) * ended_waits(b))
            << b.dump();
    }
}

// kd-starved (nice 19) waits from before the window and long into it while
// kd-peer and kd-hog take turns on its CPU. Until it first runs, no thread
// of the target is known to wait when kd-peer leaves the CPU, so who held it
// then is not kept; the holder kept next must not be taken to have held the
// CPU since the wait began, on top of the holders kept before it (the blame
// added up to several times READY).
// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line.
// TAGS kernel rt logic
TEST(BudgetE2E, AWaitBegunBeforeTheWindowIsBlamedOnceOverItsHolders)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("starved")) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        // schedstat adds a wait when it ends: kd-starved's waits, hundreds of
        // ms long, straddle the window's edges; kd-peer's compare.
        const json pb = budget_of(r, "kd-peer");
        expect_running_matches_kernel(r, "kd-peer", pb);
        expect_ready_matches_kernel(r, "kd-peer", pb);
        const json b = budget_of(r, "kd-starved");
        // Under the load harness, kd-starved may not run at all in a window
        // (then, without a task iterator, kdelay has only /proc's "R" for it), and the load's tasks
        // take its CPU as much as kd-hog does.
        if (under_load() && b["source"] == "proc")
            continue;
        for (const json* each : {&b, &pb}) {
            expect_blame_adds_up(*each);
            ASSERT_GT(u64(*each, "ready_ns"), 0u) << each->dump();
        }
        EXPECT_GT(u64(b, "ready_ns"), 500'000'000u) << b.dump();
        const uint64_t on_hog = ns_of_first(b["ready_by"], [&](const json& h) { return h["pid"] == r.window.rival; });
        if (!under_load()) {
            EXPECT_GT(on_hog, 0u) << b.dump();
        }
    }
}

// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line, and the others' shares from /proc/stat.
// TAGS kernel rt logic
TEST(BudgetE2E, WithThreeOnOneCpuTheWaitSplitsByTheOthersRunShares)
{
    KD_REQUIRE_BPF();
    for (const Sampled& r : sample_windows("three")) {
        SCOPED_TRACE("window at " + std::to_string(r.window.start_ns));
        expect_agrees_with_kernel(r);
        for (const char* name : {"spin-a", "spin-b", "spin-c"}) {
            const json b = budget_of(r, name);
            std::vector<std::pair<uint64_t, uint64_t>> others;  // blamed ns, kernel run ns
            for (const char* other : {"spin-a", "spin-b", "spin-c"})
                if (std::string(other) != name) {
                    const KernelView& k = r.window.threads.at(other);
                    others.push_back({blamed_on(b, k.tid), k.run_ns});
                }
            const double blamed = static_cast<double>(others[0].first + others[1].first);
            const double ran = static_cast<double>(others[0].second + others[1].second);
            ASSERT_GT(blamed, 0) << b.dump();
            ASSERT_GT(ran, 0) << "the other spinners never ran";
            expect_blame_adds_up(b);
            EXPECT_EQ(blamed_on(b, r.window.threads.at(name).tid), 0u) << name << " never waits for itself: " << b.dump();
            if (under_load()) {
                EXPECT_GT(others[0].first, 0u) << name << ": " << b.dump();
                EXPECT_GT(others[1].first, 0u) << name << ": " << b.dump();
                continue;
            }
            EXPECT_NEAR(others[0].first / blamed, others[0].second / ran, 0.2) << name << ": " << b.dump();
            const double share = share_of_cpu0(r.window, others[0].second + others[1].second,
                                               r.window.threads.at(name).run_ns);
            EXPECT_GE(blamed, 0.8 * share * ended_waits(b)) << name << " (" << share << " of what else ran on CPU 0): "
                                                             << b.dump();
        }
    }
}


// A thread starved of its CPU by a SCHED_FIFO thread shows no event in the
// window. The task iterator finds it queued when the window closes: it was
// READY all along (/proc's R alone would have said RUNNING), waiting since
// the hold began, before the window; the kernel's run_delay, once it runs,
// holds that whole wait. The FIFO thread, on its CPU all along, is RUNNING.
// A gtest: the kernel's figures at the window's edges, which the workload prints several to a line, and a SCHED_FIFO thread.
// TAGS kernel
TEST(BudgetE2E, AThreadStarvedAllWindowIsReadyAsTheKernelCountsItOnceItRuns)
{
    KD_REQUIRE_BPF();
    const SchedStatsOn schedstats;
    Process workload({KD_FIFO_BIN});
    ASSERT_TRUE(workload.wait_for_output("ready", 5s)) << workload.err();
    // kdelay on CPU 1: on CPU 0 the FIFO thread would hold it off too, and
    // it would read the threads' states only after the hold.
    Result r = run({"/usr/bin/taskset", "-c", "1", kKdelay, "-p", std::to_string(workload.pid()), "--format", "json", "--budget",
                    "--skip-upcall-stats", "--start-trigger", "u:kdtest:hold_start", "--stop-trigger",
                    "u:kdtest:hold_end", "--sample-count", "1"},
                   2 * kStartTimeout + 30s);
    ASSERT_EQ(r.status, 0) << r.err;
    uint64_t trigger_ns = 0;
    json threads;
    std::istringstream lines(r.out);
    for (std::string l; std::getline(lines, l);) {
        const json j = json::parse(l);
        if (j["type"] == "marker" && j["marker"] == "start")
            trigger_ns = j.value("trigger_ns", uint64_t{0});
        if (j["type"] == "sample")
            for (const auto& t : j["threads"])
                threads[t["name"].get<std::string>()] = t;
    }
    ASSERT_NE(trigger_ns, 0u) << r.out;
    // The hold whose window the trigger opened, printed 150 ms after it.
    uint64_t hold_start = 0, hold_end = 0, window_start = 0, window_end = 0, waited = 0;
    for (int i = 0; i < 50 && !waited; ++i) {
        std::istringstream out(workload.out());
        for (std::string word; out >> word;)
            if (word == "hold") {
                uint64_t h0, h1, w0, w1, n;
                out >> h0 >> h1 >> w0 >> w1 >> n;
                if (w0 <= trigger_ns && trigger_ns < w1)
                    std::tie(hold_start, hold_end, window_start, window_end, waited) = std::tie(h0, h1, w0, w1, n);
            }
        if (!waited)
            workload.wait_for_output("never", 100ms);
    }
    ASSERT_NE(waited, 0u) << "no hold around " << trigger_ns << "\n" << workload.out();
    Sampled s;
    s.threads = threads;
    const json b = budget_of(s, "kd-starved");
    EXPECT_EQ(b["source"], "iterator") << b.dump();
    EXPECT_EQ(u64(b, "running_ns"), 0u) << b.dump();
    EXPECT_EQ(u64(b, "ready_ns"), u64(b, "window_ns")) << b.dump();
    // Waiting since the hold began: 100 ms before the window (more in a
    // slow guest), as the run-queue clock dates it. Where the TSC is
    // unstable (TCG marks it so), each CPU's run-queue clock is held
    // within a tick of the last tick's time: the two CPUs' clocks can be
    // two ticks apart (6.5 ms seen on 5.10, HZ=250).
    // Under the load harness, a load task may have held CPU 0 when kd-fifo
    // woke, so kd-starved's wait can begin before the hold (by 13 ms once);
    // the kernel's count below bounds it then.
    constexpr uint64_t kTwoTicksNs = 9'000'000;
    const uint64_t before = trigger_ns - hold_start;
    EXPECT_GE(u64(b, "ready_before_window_ns") + kTwoTicksNs, before) << b.dump();
    if (!under_load()) {
        EXPECT_LE(u64(b, "ready_before_window_ns"), before + kTwoTicksNs) << b.dump();
    }
    // The kernel's count of the whole wait, once it ended: the part before
    // the window, READY, and the hold's rest after the window.
    // Under the load harness, the load's tasks on CPU 0 make kd-starved wait
    // more around the hold too, which the kernel's count holds. After the
    // hold, kd-starved waits for its switch-in: a tick here, more in an
    // emulated guest (5.10 under TCG once took 10.02 ms).
    const uint64_t after = hold_end > window_end ? hold_end - window_end : 0;
    const uint64_t kdelay_wait = u64(b, "ready_before_window_ns") + u64(b, "ready_ns");
    const uint64_t switch_in = in_emulated_guest() ? 30'000'000 : 10'000'000;
    EXPECT_LE(kdelay_wait, waited + 5'000'000) << b.dump();
    if (!under_load()) {
        EXPECT_GE(kdelay_wait + after + switch_in, waited) << b.dump() << " waited " << waited;
    }
    // Only a kernel stopper thread (migration/0) is above it.
    const json fifo = budget_of(s, "kd-fifo");
    EXPECT_GE(u64(fifo, "running_ns") + 1'000'000, u64(fifo, "window_ns")) << fifo.dump() << "\n" << workload.out();
}

// --timeline FILE in samples: one trace of every sample's window, decoded
// by protoc and checked (tests/timeline/check_trace.py). kd-waiter's state
// track covers both windows; its futex waits end in ready slices that
// kd-waker's wakeups flow into, each of which kd-waker's track holds.
// A gtest: it decodes the Perfetto trace kdelay wrote.
// TAGS kernel logic
TEST(BudgetE2E, ASamplesTimelineCoversEachWindowAndDrawsTheWakeups)
{
    KD_REQUIRE_BPF();
    char dir[] = "/tmp/kdelay-timeline-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string trace = std::string(dir) + "/samples.pftrace";
    Process workload({kBudget, "wake"});
    ASSERT_TRUE(workload.wait_for_output("ready", 5s));
    const Result r = run({kKdelay, "-p", std::to_string(workload.pid()), "--timeline", trace, "--sample-time", "0.5",
                          "--sample-count", "2", "--format", "json"},
                         60s);
    ASSERT_EQ(r.status, 0) << r.err;
    uint64_t windows_ns = 0, running_ns = 0, ready_ns = 0;
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);) {
        const json j = json::parse(l);
        if (j["type"] == "sample")
            for (const auto& t : j["threads"])
                if (t["name"] == "kd-waiter") {
                    windows_ns += u64(t["budget"], "window_ns");
                    running_ns += u64(t["budget"], "running_ns");
                    ready_ns += u64(t["budget"], "ready_ns");
                }
    }
    ASSERT_GT(windows_ns, 900'000'000u) << r.out;
    const Result check = run({"/usr/bin/python3", KD_TIMELINE_CHECK, KD_PERFETTO_PROTO, trace}, 30s);
    ASSERT_EQ(check.status, 0) << check.out << check.err;
    const json c = json::parse(check.out);
    uint64_t waiter = 0, waker = 0;
    for (const json& t : c["tracks"]) {
        if (t["name"] == "kd-waiter")
            waiter = t["uuid"];
        if (t["name"] == "kd-waker")
            waker = t["uuid"];
    }
    ASSERT_NE(waiter, 0u) << check.out;
    ASSERT_NE(waker, 0u) << check.out;
    size_t woken_by_waker = 0, wakes = 0;
    for (const json& t : c["tracks"]) {
        if (t["name"] == "state" && t["parent"] == waiter) {
            EXPECT_NEAR(double(t["covered_ns"].get<uint64_t>()), double(windows_ns),
                        1e3 * double(t["slices"].size()))
                << t.dump();
            // Its runs and waits for a CPU are the budget's, from the same
            // kernel dates; what came before its first event in a window
            // (`no event yet` on the trace) the budget gives the state it
            // found then, which may be either.
            std::map<std::string, uint64_t> traced;
            for (const json& s : t["slices"]) {
                woken_by_waker += s["args"].value("woken by", "").find("kd-waker") == 0;
                traced[s["name"]] += s["end_ns"].get<uint64_t>() - s["start_ns"].get<uint64_t>();
            }
            const uint64_t unseen = traced["no event yet"];
            for (const auto& [state, budget_ns] : {std::pair<std::string, uint64_t>{"running", running_ns},
                                                   std::pair<std::string, uint64_t>{"ready", ready_ns}}) {
                EXPECT_LE(traced[state], budget_ns + 10'000) << state << ": " << t.dump();
                EXPECT_LE(budget_ns, traced[state] + unseen + 10'000) << state << ": " << t.dump();
            }
        }
        if (t["uuid"] == waker)
            for (const json& s : t["slices"])
                wakes += s["name"] == "wakes kd-waiter";
    }
    // A wakeup every 50 ms, over two windows of 500 ms.
    EXPECT_GE(woken_by_waker, 10u) << check.out;
    EXPECT_EQ(wakes, woken_by_waker) << check.out;
    unlink(trace.c_str());
    rmdir(dir);
}
