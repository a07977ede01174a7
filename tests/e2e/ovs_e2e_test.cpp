// Upcall statistics and the drop-in behaviour against a real ovs-vswitchd with
// the kernel datapath (tests/ovs/ovs-sandbox.sh). Runs where the openvswitch
// module and Debian's openvswitch-switch exist: the guests of tests/vm.
#include <ctime>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

const std::string kSandbox = KD_OVS_SANDBOX;

Result sandbox(const std::vector<std::string>& what, std::chrono::milliseconds timeout = 60s)
{
    std::vector<std::string> argv = {"/usr/bin/env", std::string("KD_UDP_FLOWS=") + KD_UDP_FLOWS_BIN, kSandbox};
    argv.insert(argv.end(), what.begin(), what.end());
    return run(argv, timeout);
}

Result sandbox(const std::string& what, std::chrono::milliseconds timeout = 60s)
{
    return sandbox(std::vector<std::string>{what}, timeout);
}

struct Counters {
    uint64_t missed = 0, lost = 0;
};

Counters datapath_counters()
{
    std::istringstream in(sandbox("counters").out);
    Counters c;
    in >> c.missed >> c.lost;
    return c;
}

// FLOWS new UDP flows from kd-ns1 to kd-ns2 (one upcall each), PER_SECOND 0: a burst.
void send_flows(int flows, int first_port, int per_second)
{
    const Result r = run({"/usr/sbin/ip", "netns", "exec", "kd-ns1", KD_UDP_FLOWS_BIN, "10.77.0.2",
                          std::to_string(flows), std::to_string(first_port), std::to_string(per_second)},
                         120s);
    ASSERT_EQ(r.status, 0) << r.err;
}

// The number after "LABEL: " in the upcall section, or -1.
int64_t upcall_line(const std::string& out, const std::string& label)
{
    std::smatch m;
    if (!std::regex_search(out, m, std::regex("\n  " + label + " *: ([0-9]+) \\[")))
        return -1;
    return std::stoll(m[1]);
}

bool kprobe_registered(const std::string& function)
{
    std::ifstream list("/sys/kernel/debug/kprobes/list");
    std::string line;
    while (std::getline(list, line))
        if (line.find(" " + function + "+") != std::string::npos)
            return true;
    return false;
}

class OvsE2E : public testing::Test {
protected:
    static void SetUpTestSuite()
    {
        if (!why_no_bpf().empty())
            return;
        const Result r = sandbox("up", 300s);
        if (r.status == 77)
            skip_ = r.err.empty() ? "no Open vSwitch here" : r.err.substr(0, r.err.find('\n'));
        else if (r.status != 0)
            failure_ = "ovs-sandbox.sh up failed (" + std::to_string(r.status) + "): " + r.err;
        else
            vswitchd_ = std::stoi(r.out);
    }
    static void TearDownTestSuite()
    {
        if (vswitchd_ > 0)
            sandbox("down");
    }
    void SetUp() override
    {
        KD_REQUIRE_BPF();
        if (!skip_.empty())
            GTEST_SKIP() << skip_;
        ASSERT_TRUE(failure_.empty()) << failure_;
        ASSERT_GT(vswitchd_, 0);
    }
    static inline std::string skip_, failure_;
    static inline pid_t vswitchd_ = 0;
};

}  // namespace

// A gtest: a real ovs-vswitchd in its sandbox.
// TAGS kernel ovs logic
TEST_F(OvsE2E, FindsTheDaemonWithoutPidAndReportsItsThreads)
{
    Process kdelay({kKdelay, "--sample-time", "3"});
    ASSERT_TRUE(kdelay.wait_for_output("# Start sampling", kStartTimeout)) << kdelay.err();
    send_flows(20, 21000, 20);  // wakes the handlers: an idle thread has nothing to report
    ASSERT_EQ(kdelay.wait(60s), 0) << kdelay.err();
    const Result r{0, kdelay.out(), kdelay.err()};
    const auto samples = parse_samples(r.out);
    ASSERT_EQ(samples.size(), 1u) << r.out;
    bool handler = false, revalidator = false;
    for (const auto& [tid, block] : samples[0]) {
        handler |= block.name.rfind("handler", 0) == 0;
        revalidator |= block.name.rfind("revalidator", 0) == 0;
        EXPECT_TRUE(block.sections.count("[SYSCALL STATISTICS]")) << block.name;
    }
    EXPECT_TRUE(handler) << r.out;
    EXPECT_TRUE(revalidator) << r.out;
}

// A gtest: a real ovs-vswitchd in its sandbox, and its datapath's counters.
// TAGS kernel ovs
TEST_F(OvsE2E, UpcallTotalsMatchTheDatapathsMissedCounter)
{
    const int flows = 300;
    const Counters before = datapath_counters();
    Process kdelay({kKdelay, "-p", std::to_string(vswitchd_), "--sample-time", "8"});
    ASSERT_TRUE(kdelay.wait_for_output("# Start sampling", kStartTimeout)) << kdelay.err();
    send_flows(flows, 20000, 150);
    ASSERT_EQ(kdelay.wait(60s), 0) << kdelay.err();
    const Counters after = datapath_counters();

    const int64_t total = upcall_line(kdelay.out(), "Total upcalls");
    const uint64_t missed = after.missed - before.missed;
    EXPECT_GE(total, flows) << kdelay.out();
    // kdelay's window lies inside the counters' window: at most a few
    // upcalls (an ICMP reply, a late packet) fall outside it.
    EXPECT_LE(static_cast<uint64_t>(total), missed);
    EXPECT_LE(missed - static_cast<uint64_t>(total), 10u) << kdelay.out();
    EXPECT_EQ(after.lost, before.lost) << "paced flows lose nothing";
    EXPECT_EQ(kdelay.out().find("Failed upcalls"), std::string::npos) << kdelay.out();
    EXPECT_NE(kdelay.out().find("# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):\n"),
              std::string::npos);
}

// A gtest: a real ovs-vswitchd in its sandbox, and its datapath's counters.
// TAGS kernel ovs
TEST_F(OvsE2E, FailedUpcallsShowTheirErrnoAndMatchTheLostCounter)
{
    const Counters before = datapath_counters();
    const int flows = 20000;
    Process kdelay({kKdelay, "-p", std::to_string(vswitchd_), "--sample-time", "30"});
    ASSERT_TRUE(kdelay.wait_for_output("# Start sampling", kStartTimeout)) << kdelay.err();
    // A stopped daemon reads no upcalls: its sockets fill and the kernel fails the rest.
    kill(vswitchd_, SIGSTOP);
    send_flows(flows, 2000, 0);
    std::this_thread::sleep_for(500ms);
    kill(vswitchd_, SIGCONT);
    ASSERT_EQ(kdelay.wait(120s), 0) << kdelay.err();
    const Counters after = datapath_counters();

    const std::string& out = kdelay.out();
    const int64_t total = upcall_line(out, "Total upcalls");
    const int64_t ok = upcall_line(out, "Successfull upcalls");
    const int64_t failed = upcall_line(out, "Failed upcalls");
    ASSERT_GT(failed, 0) << out;
    EXPECT_EQ(total, ok + failed) << out;
    EXPECT_GE(total, flows) << out;
    const uint64_t lost = after.lost - before.lost;
    EXPECT_LE(static_cast<uint64_t>(failed), lost) << out;
    EXPECT_LE(lost - static_cast<uint64_t>(failed), 10u) << out;
    // One line per errno: a full socket is EAGAIN.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(out, m, std::regex("\n     11, EAGAIN       : ([0-9]+) \\[")))
        << out;
    EXPECT_GT(std::stoll(m[1]), 0);
}

// A gtest: a real ovs-vswitchd in its sandbox.
// TAGS kernel ovs logic
TEST_F(OvsE2E, SkipUpcallStatsAttachesNoProbe)
{
    for (const bool skip : {false, true}) {
        std::vector<std::string> argv = {kKdelay, "-p", std::to_string(vswitchd_), "--sample-time", "4"};
        if (skip)
            argv.push_back("--skip-upcall-stats");
        Process kdelay(argv);
        ASSERT_TRUE(kdelay.wait_for_output("# Start sampling", kStartTimeout)) << kdelay.err();
        const bool attached = kprobe_registered("ovs_dp_upcall");
        send_flows(20, 40000 + (skip ? 100 : 0), 50);
        ASSERT_EQ(kdelay.wait(60s), 0) << kdelay.err();
        if (access("/sys/kernel/debug/kprobes/list", R_OK) == 0) {
            EXPECT_EQ(attached, !skip) << "kretprobe on ovs_dp_upcall while sampling";
        }
        EXPECT_EQ(kdelay.out().find("UPCALL STATISTICS") == std::string::npos, skip) << kdelay.out();
    }
}

// A gtest: a real ovs-vswitchd in its sandbox.
// TAGS kernel ovs
TEST_F(OvsE2E, WithoutKprobesTheTracepointCountsCallsOnly)
{
    const int flows = 100;
    Process kdelay({"/usr/bin/env", "KDELAY_UPCALL_PROBE=tracepoint", kKdelay, "-p",
                    std::to_string(vswitchd_), "--sample-time", "5", "--format", "json"});
    ASSERT_TRUE(kdelay.wait_for_output("\"marker\":\"start\"", kStartTimeout)) << kdelay.err();
    EXPECT_FALSE(kprobe_registered("ovs_dp_upcall"));
    send_flows(flows, 50000, 100);
    ASSERT_EQ(kdelay.wait(60s), 0) << kdelay.err();
    // kdelay has mounted tracefs by now; the module's tracepoints came in Linux 5.15.
    const bool tracepoint = access("/sys/kernel/tracing/events/openvswitch/ovs_dp_upcall", F_OK) == 0;
    const std::string expected_note = tracepoint ? "failed upcalls and their errors need kprobes"
                                                 : "and this kernel's openvswitch module has no "
                                                   "ovs_dp_upcall tracepoint";
    bool note = false, sample = false;
    std::istringstream lines(kdelay.out());
    for (std::string line; std::getline(lines, line);) {
        const auto j = nlohmann::json::parse(line);
        if (j["type"] == "note")
            note |= j["text"].get<std::string>().find(expected_note) != std::string::npos;
        if (j["type"] != "sample")
            continue;
        sample = true;
        const auto& u = j["upcalls"];
        if (!tracepoint) {
            EXPECT_TRUE(u.is_null()) << line;
            continue;
        }
        ASSERT_TRUE(u.is_object()) << line;
        EXPECT_FALSE(u["results_known"].get<bool>());
        EXPECT_GE(u["total"].get<int64_t>(), flows);
        EXPECT_FALSE(u.contains("errors"));
    }
    EXPECT_TRUE(note) << kdelay.out();
    EXPECT_TRUE(sample);
}

namespace {

// An "Unreasonably long ...ms poll interval" warning of ovs-vswitchd's log,
// with the "context switches" line that follows it in the same thread.
struct PollWarning {
    std::string thread;  // "handler5"; empty: the main thread
    uint64_t logged_unix_ms = 0;  // the line's time: just after Open vSwitch measured
    uint64_t ms = 0, user_ms = 0, system_ms = 0;
    bool has_switches = false;
    uint64_t voluntary = 0, involuntary = 0;
};

std::vector<PollWarning> poll_warnings(const std::string& log)
{
    std::vector<PollWarning> all;
    const std::regex warning(R"(^([0-9-]+T[0-9:]+)\.([0-9]{3})Z\|[0-9]+\|timeval(?:\(([^)]*)\))?\|WARN\|)"
                             R"(Unreasonably long ([0-9]+)ms poll interval \(([0-9]+)ms user, ([0-9]+)ms system\))");
    const std::regex switches(R"(\|timeval(?:\(([^)]*)\))?\|WARN\|context switches: ([0-9]+) voluntary, )"
                              R"(([0-9]+) involuntary)");
    std::istringstream in(log);
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        if (std::regex_search(line, m, warning)) {
            std::tm tm{};
            std::istringstream(m[1].str()) >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
            const uint64_t unix_ms = static_cast<uint64_t>(timegm(&tm)) * 1000 + std::stoull(m[2]);
            all.push_back({m[3], unix_ms, std::stoull(m[4]), std::stoull(m[5]), std::stoull(m[6])});
        } else if (std::regex_search(line, m, switches)) {
            for (auto w = all.rbegin(); w != all.rend(); ++w)
                if (w->thread == m[1].str()) {
                    w->has_switches = true;
                    w->voluntary = std::stoull(m[2]);
                    w->involuntary = std::stoull(m[3]);
                    break;
                }
        }
    }
    return all;
}

std::string file_from(const std::string& path, std::streamoff offset)
{
    std::ifstream f(path);
    f.seekg(offset);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

// Open vSwitch measures its interval's end just before getrusage(2)
// (log_poll_interval), so its interval began at that call's entry less its
// length, within ms truncation at each end; its clock read after the
// poll() return may come later than kdelay's start (below).
// Without the call in the stall's timeline (its probe skipped), the
// warning line's time stands for the end. kdelay's start may be later by
// 10 ms, and earlier by 20: Open vSwitch reads its clock after the poll()
// return (the main thread once 11 ms after, amid a softirq flood), and
// the line may be as late (13 ms seen).
constexpr int64_t kStartSlackNs = 10'000'000;
constexpr int64_t kEarlyStartSlackNs = 20'000'000;

// The CLOCK_MONOTONIC entry of the thread's last getrusage(2) in a stall's
// timeline, or 0; the timeline is checked whole on the way (its slices
// nest, its states cover the interval).
uint64_t last_getrusage_ns(const nlohmann::json& report)
{
    const Result check = run({"/usr/bin/python3", KD_TIMELINE_CHECK, KD_PERFETTO_PROTO, report["timeline"],
                              std::to_string(report["start_ns"].get<uint64_t>()),
                              std::to_string(report["end_ns"].get<uint64_t>())},
                             60s);
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    if (check.status != 0)
        return 0;
    const nlohmann::json checked = nlohmann::json::parse(check.out);
    uint64_t at = 0;
    for (const nlohmann::json& t : checked["tracks"])
        if (t["tid"] == report["thread"]["tid"])
            for (const nlohmann::json& s : t["slices"])
                if (s["name"] == "getrusage")
                    at = std::max(at, s["start_ns"].get<uint64_t>());
    return at;
}

// An interval of kdelay's that no warning matches may be one that Open
// vSwitch measured under a second, before the tail of its next poll()
// (the warning, the coverage log and RCU's quiescing after its
// measurement: up to 157 ms seen under TCG).
constexpr uint64_t kUnloggedTailNs = 300'000'000;

// Where a stall of the main thread ran (--profile, on by default): its
// samples stand for its RUNNING; Debian's ovs-vswitchd (stripped, its
// frames "ovs-vswitchd+0xSTART") and glibc keep no frame pointer, and the
// stacks unwound from their copies reach the program's start; its kernel
// frames are the openvswitch module's and the network stack's (netlink to
// the datapath, the ports' devices).
void expect_main_thread_profile(const nlohmann::json& r)
{
    const nlohmann::json& b = r["thread"]["budget"];
    ASSERT_TRUE(b["profile"].is_object()) << r.dump();
    const nlohmann::json& p = b["profile"];
    const uint64_t samples = p["samples"].get<uint64_t>() - p["lost"].get<uint64_t>();
    ASSERT_GE(samples, 10u) << r.dump();
    EXPECT_NEAR(double(p["sampled_ns"].get<uint64_t>()) / double(b["running_ns"].get<uint64_t>()), 1.0, 0.25)
        << r.dump();
    uint64_t from_start = 0, network = 0;
    for (const nlohmann::json& s : p["stacks"]) {
        bool start = false, net = false;
        for (const nlohmann::json& f : s["frames"]) {
            const std::string frame = f.get<std::string>();
            start |= frame == "__libc_start_main [libc.so.6]";
            if (frame.size() > 9 && frame.compare(frame.size() - 9, 9, " [kernel]") == 0)
                for (const char* prefix : {"ovs_", "genl_", "netlink_", "rtnl", "dev_", "__dev_", "netdev_",
                                           "register_netdev", "unregister_netdev"})
                    net |= frame.rfind(prefix, 0) == 0;
        }
        from_start += start ? s["count"].get<uint64_t>() : 0;
        network += net ? s["count"].get<uint64_t>() : 0;
    }
    std::cout << "main thread's profile: " << samples << " samples, " << from_start << " from the start, "
              << network << " in the datapath or network stack, " << p["stacks_lost"] << " stacks lost\n";
    // Under TCG, whose kdelay is slow to read the copies, a guest lost a
    // third of the main thread's copies to a full ring (their stacks the
    // frame-pointer walk's) while the handlers' long stalls were read.
    EXPECT_GE(from_start, 1u) << p.dump();
    EXPECT_GE(network, 1u) << p.dump();
}

}  // namespace

// Real work that takes ovs-vswitchd's threads over a second under TCG: a
// burst of new flows whose translation resubmits through 1,024 lookups (each
// handler batch) and internal ports added and removed in one transaction
// each (the main thread). Open vSwitch logs every interval of 1000 ms or
// more, without rate limit: each warning must be exactly one kdelay stall of
// that thread, beginning where Open vSwitch's interval began (its
// getrusage(2) in the stall's timeline, or the line's time, less its
// length) and ending after the line was written, running for
// its user + system time and switching as often but for that tail; and
// kdelay must report no stall of a second that Open vSwitch did not log.
// On 7.2 the kernel skips hundreds of runs of the syscall probes a minute
// here (one preempted on a CPU keeps the others out); a skipped poll
// return once lost the main thread's interval, which the switch-in now
// begins (stall_resumed); a skipped sys_enter once let a futex's wake
// begin a revalidator's interval 12 ms late, until the syscall a woken
// thread is in was read from its registers. A wait that returned without
// blocking, its return's probe skipped, still begins none: one warning may
// go unseen, when kdelay has told the skipped runs.
// A gtest: a real ovs-vswitchd in its sandbox, and its own log.
// TAGS kernel ovs
TEST_F(OvsE2E, StallsAreOpenVswitchsUnreasonablyLongPollIntervals)
{
    std::string log = sandbox("log").out;
    log.erase(log.find_last_not_of('\n') + 1);
    ASSERT_EQ(sandbox(std::vector<std::string>{"slow-flows", "10"}).status, 0);
    char timelines[] = "/tmp/kdelay-ovs-timeline-XXXXXX";
    ASSERT_NE(mkdtemp(timelines), nullptr);
    Process kdelay({kKdelay, "-p", std::to_string(vswitchd_), "--stall", "1s", "--timeline", timelines, "--format",
                    "json"});
    ASSERT_TRUE(kdelay.wait_for_output("\"marker\":\"start\"", kStartTimeout)) << kdelay.err();
    std::ifstream at_start(log, std::ios::ate);
    const std::streamoff offset = at_start.tellg();
    send_flows(128, 30000, 0);
    std::this_thread::sleep_for(3s);
    const Result added = sandbox(std::vector<std::string>{"add-ports", "8"}, 600s);
    const Result deleted = sandbox(std::vector<std::string>{"del-ports", "8"}, 600s);
    const Result normal = sandbox("normal-flows");
    std::this_thread::sleep_for(3s);
    kdelay.signal(SIGINT);
    ASSERT_EQ(kdelay.wait(60s), 0) << kdelay.err();
    ASSERT_EQ(added.status, 0) << added.err;
    ASSERT_EQ(deleted.status, 0) << deleted.err;
    ASSERT_EQ(normal.status, 0) << normal.err;

    const std::vector<PollWarning> warnings = poll_warnings(file_from(log, offset));
    std::vector<nlohmann::json> reports;
    uint64_t skipped_runs = 0;  // the kernel's, as kdelay told them
    std::istringstream out(kdelay.out());
    for (std::string line; std::getline(out, line);)
        if (line.rfind("{", 0) == 0) {
            nlohmann::json j = nlohmann::json::parse(line);
            if (j["type"] == "stall")
                reports.push_back(std::move(j));
            else if (j["type"] == "lost" && j["what"] == "probe runs")
                skipped_runs = j["total"].get<uint64_t>();
        }
    const auto length_ns = [](const nlohmann::json& r) {
        return r["end_ns"].get<uint64_t>() - r["start_ns"].get<uint64_t>();
    };
    const auto of_thread = [&](const nlohmann::json& r, const std::string& thread) {
        return thread.empty() ? r["thread"]["tid"] == vswitchd_ : r["thread"]["name"] == thread;
    };
    // Each report's end as Open vSwitch measured it, from its timeline.
    std::vector<uint64_t> measured_end_ns;
    for (const nlohmann::json& r : reports) {
        ASSERT_TRUE(r["timeline"].is_string()) << r.dump();
        measured_end_ns.push_back(last_getrusage_ns(r));
        unlink(r["timeline"].get<std::string>().c_str());
    }
    rmdir(timelines);
    std::vector<bool> matched(reports.size(), false);
    size_t handlers = 0, main_thread = 0, unseen = 0;
    for (const PollWarning& w : warnings) {
        SCOPED_TRACE("warning of " + (w.thread.empty() ? std::string("the main thread") : w.thread) + ": " +
                     std::to_string(w.ms) + " ms, " + std::to_string(w.user_ms) + " ms user, " +
                     std::to_string(w.system_ms) + " ms system");
        const uint64_t ovs_ns = w.ms * 1'000'000;
        const int64_t ovs_start_ns = static_cast<int64_t>(w.logged_unix_ms * 1'000'000 - ovs_ns);
        std::vector<size_t> same;
        std::string starts;  // of the thread's reports, from Open vSwitch's start
        for (size_t k = 0; k < reports.size(); ++k) {
            if (!of_thread(reports[k], w.thread))
                continue;
            const bool by_call = measured_end_ns[k] != 0;
            const int64_t off = by_call ? reports[k]["start_ns"].get<int64_t>() -
                                              static_cast<int64_t>(measured_end_ns[k] - ovs_ns)
                                        : reports[k]["start_unix_ns"].get<int64_t>() - ovs_start_ns;
            starts += " " + std::to_string(off / 1'000'000) + " ms" + (by_call ? "" : " (by the line)");
            // And it ends at the next poll(), after the line was written:
            // a thread's intervals do not overlap, so an earlier one of the
            // thread, whose own end is in its timeline, is no match.
            const bool ends_after_line = reports[k]["start_unix_ns"].get<uint64_t>() + length_ns(reports[k]) +
                                             2'000'000 >=
                                         w.logged_unix_ms * 1'000'000;
            if (off >= -kEarlyStartSlackNs && off <= kStartSlackNs && ends_after_line)
                same.push_back(k);
        }
        // A return of a wait that did not block, whose probe the kernel
        // skipped, begins no interval: kdelay must then have said so.
        if (same.empty() && skipped_runs > 0) {
            std::cout << "not seen, with " << skipped_runs << " probe runs skipped: " << w.ms << " ms of "
                      << (w.thread.empty() ? "main" : w.thread) << "; its reports start at" << starts << "\n";
            ++unseen;
            continue;
        }
        ASSERT_EQ(same.size(), 1u) << "the thread's reports start, from Open vSwitch's start:" << starts << "\n"
                                   << kdelay.out();
        const nlohmann::json& r = reports[same[0]];
        matched[same[0]] = true;
        EXPECT_GE(length_ns(r) + 2'000'000, ovs_ns) << r.dump();
        if (w.thread.empty())
            ++main_thread;
        else if (w.thread.rfind("handler", 0) == 0)
            ++handlers;
        const uint64_t tail_ns = length_ns(r) > ovs_ns ? length_ns(r) - ovs_ns : 0;
        std::cout << "matched " << (w.thread.empty() ? "main" : w.thread) << ": " << w.ms << " ms, kdelay +"
                  << tail_ns / 1e6 << " ms; running " << r["thread"]["budget"]["running_ns"].get<uint64_t>() / 1e6
                  << " ms against " << w.user_ms + w.system_ms << "; switches " << r["voluntary_switches"] << "/"
                  << r["involuntary_switches"] << " against " << w.voluntary << "/" << w.involuntary
                  << "; the thread's reports start at" << starts << "\n";
        // RUNNING is user + system (each truncated to ms), and at most the
        // tail more.
        const uint64_t cpu_ns = (w.user_ms + w.system_ms) * 1'000'000;
        const uint64_t running = r["thread"]["budget"]["running_ns"].get<uint64_t>();
        const uint64_t slack = 15'000'000 + cpu_ns / 50;
        EXPECT_GE(running + slack, cpu_ns) << r.dump();
        EXPECT_LE(running, cpu_ns + tail_ns + slack) << r.dump();
        // The context switches: the kernel's counts Open vSwitch reads (no
        // line: none), and what the tail added. Writing the warning and the
        // coverage log was preempted up to 4 times a ms in the guests (83
        // times in a 58 ms tail of a handler on 7.2, 111 in a 27 ms tail of
        // the main thread on 6.1); without a tail the counts were equal.
        const uint64_t voluntary = r["voluntary_switches"], involuntary = r["involuntary_switches"];
        const uint64_t tail_switches = 2 + 5 * tail_ns / 1'000'000;
        EXPECT_GE(voluntary, w.voluntary) << r.dump();
        EXPECT_LE(voluntary, w.voluntary + 2) << r.dump();
        EXPECT_GE(involuntary, w.involuntary) << r.dump();
        EXPECT_LE(involuntary, w.involuntary + tail_switches) << r.dump();
        if (w.thread.empty())
            expect_main_thread_profile(r);
    }
    // No stall of a second that Open vSwitch did not log: only an interval
    // just under its second, which the tail took over.
    for (size_t k = 0; k < reports.size(); ++k) {
        if (!matched[k]) {
            EXPECT_LT(length_ns(reports[k]), 1'000'000'000 + kUnloggedTailNs)
                << "not in Open vSwitch's log:\n" << reports[k].dump();
        }
    }
    EXPECT_LE(unseen, 1u) << "more than one warning unseen";
    EXPECT_GE(handlers, 1u) << "no handler stalled:\n" << kdelay.out();
    EXPECT_GE(main_thread, 1u) << "the main thread did not stall:\n" << kdelay.out();
}
