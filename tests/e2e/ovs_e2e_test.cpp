// Upcall statistics and the drop-in behaviour against a real ovs-vswitchd with
// the kernel datapath (tests/ovs/ovs-sandbox.sh). Runs where the openvswitch
// module and Debian's openvswitch-switch exist: the guests of tests/vm.
#include <fstream>
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

Result sandbox(const std::string& what, std::chrono::milliseconds timeout = 60s)
{
    return run({"/usr/bin/env", std::string("KD_UDP_FLOWS=") + KD_UDP_FLOWS_BIN, kSandbox, what}, timeout);
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

// TAGS kernel ovs
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

// TAGS kernel ovs
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
