// --format json end to end: every line is an object of the documented schema
// (docs/json.md) and carries the same numbers as the text report.
#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

std::vector<json> json_lines(const std::string& out)
{
    std::vector<json> lines;
    std::istringstream in(out);
    std::string l;
    while (std::getline(in, l)) {
        EXPECT_NO_THROW(lines.push_back(json::parse(l))) << l;
        EXPECT_TRUE(lines.back().is_object() && lines.back()["type"].is_string()) << l;
    }
    return lines;
}

void expect_stat(const json& s)
{
    for (const char* k : {"count", "total_ns", "min_ns", "max_ns"})
        EXPECT_TRUE(s[k].is_number_unsigned()) << k << " in " << s.dump();
}

// The thread object of docs/json.md.
void expect_thread_schema(const json& t)
{
    EXPECT_TRUE(t["tid"].is_number_unsigned());
    EXPECT_TRUE(t["pid"].is_number_unsigned()) << t["pid"];
    EXPECT_TRUE(t["name"].is_string());
    for (const auto& s : t["syscalls"]) {
        expect_stat(s);
        EXPECT_TRUE(s["nr"].is_number_unsigned() && s["name"].is_string());
    }
    for (const char* k : {"long_poll", "run", "ready", "stopped"})
        if (!t[k].is_null())
            expect_stat(t[k]);
    for (const char* k : {"hardirqs", "softirqs", "block_io"}) {
        ASSERT_TRUE(t[k].is_array()) << k;
        for (const auto& s : t[k])
            expect_stat(s);
    }
    for (const auto& s : t["softirqs"])
        EXPECT_TRUE(s["vector"].is_number_unsigned());
    for (const auto& b : t["block_io"])
        EXPECT_TRUE(b["disk"].is_string() && b["op"].is_string() && b["bytes"].is_number_unsigned());
    const json& b = t["budget"];
    ASSERT_TRUE(b.is_object()) << t.dump();
    for (const char* k : {"window_ns", "running_ns", "irq_ns", "ready_ns", "ready_before_window_ns", "blocked_ns",
                          "stopped_ns", "not_alive_ns"})
        EXPECT_TRUE(b[k].is_number_unsigned()) << k << " in " << b.dump();
    EXPECT_TRUE(b["remainder_ns"].is_number_integer());
    EXPECT_TRUE(b["source"] == "ebpf" || b["source"] == "iterator" || b["source"] == "proc") << b.dump();
    uint64_t blocked = 0;
    for (const auto& part : b["blocked"]) {
        EXPECT_TRUE(part["ns"].is_number_unsigned() && part["outside_syscalls"].is_boolean()) << part.dump();
        EXPECT_EQ(part["syscall"].is_null(), part["nr"].is_null()) << part.dump();
        blocked += part["ns"].get<uint64_t>();
    }
    EXPECT_EQ(blocked, b["blocked_ns"].get<uint64_t>()) << b.dump();
    for (const auto& h : b["ready_by"]) {
        const bool task = h["kind"] == "task";
        EXPECT_TRUE(task || h["kind"] == "irq" || h["kind"] == "others" || h["kind"] == "open") << h.dump();
        EXPECT_EQ(task, h["comm"].is_string() && h["tid"].is_number_unsigned()) << h.dump();
        EXPECT_TRUE(h["ns"].is_number_unsigned()) << h.dump();
    }
    for (const auto& w : b["wakers"]) {
        EXPECT_TRUE(w["count"].is_number_unsigned() && w["blocked_ns"].is_number_unsigned()) << w.dump();
        const bool task = w["kind"] == "task";
        EXPECT_TRUE(task || w["kind"] == "hardirq" || w["kind"] == "softirq" || w["kind"] == "timer") << w.dump();
        EXPECT_EQ(task, w["comm"].is_string()) << w.dump();
        EXPECT_EQ(task, w["tid"].is_number_unsigned() && w["pid"].is_number_unsigned()) << w.dump();
    }
}

}  // namespace

// A gtest: every object checked against the schema of docs/json.md.
TEST(JsonE2E, DelayReportAsJsonLines)
{
    KD_REQUIRE_BPF();
    Process workload({kWorkload, "syscalls", "1000", "20"});
    ASSERT_TRUE(workload.wait_for_output("ready", 5s));
    Process kdelay(
        {kKdelay, "-p", std::to_string(workload.pid()), "--sample-time", "2", "--budget", "--format", "json"});
    ASSERT_TRUE(kdelay.wait_for_output("\"marker\":\"start\"", kStartTimeout)) << kdelay.err();
    workload.signal(SIGUSR1);
    ASSERT_TRUE(workload.wait_for_output("done", 10s));
    const uint32_t tid = workload_tid(workload.out(), "kd-counter");
    ASSERT_EQ(kdelay.wait(20s), 0) << kdelay.err();

    const auto lines = json_lines(kdelay.out());
    std::vector<std::string> markers;
    const json* sample = nullptr;
    for (const auto& l : lines) {
        if (l["type"] == "marker") {
            markers.push_back(l["marker"]);
            EXPECT_TRUE(l["time_unix_ns"].is_number_integer());
        } else if (l["type"] == "sample") {
            sample = &l;
        }
    }
    EXPECT_EQ(markers, (std::vector<std::string>{"start", "stop", "dump"}));
    ASSERT_TRUE(sample);
    EXPECT_TRUE((*sample)["syscall_events"].is_array());
    const json* counter = nullptr;
    for (const auto& t : (*sample)["threads"]) {
        expect_thread_schema(t);
        if (t["tid"] == tid)
            counter = &t;
    }
    ASSERT_TRUE(counter) << kdelay.out();
    EXPECT_EQ((*counter)["name"], "kd-counter");
    std::map<std::string, uint64_t> counts;
    for (const auto& s : (*counter)["syscalls"])
        counts[s["name"]] = s["count"];
    EXPECT_EQ(counts["getppid"], 1000u);
    EXPECT_EQ(counts["nanosleep"], 20u);
}

// A gtest: every object checked against the schema of docs/json.md.
TEST(JsonE2E, BiosnoopAsJsonLines)
{
    KD_REQUIRE_BPF();
    const std::string file = "/var/tmp/kdelay-json-" + std::to_string(getpid()) + ".dio";
    unlink(file.c_str());
    Process target({kWorkload, "dio", file, "4", "64"});
    ASSERT_TRUE(target.wait_for_output("ready", 5s));
    Process bio({kKdelay, "biosnoop", "-p", std::to_string(target.pid()), "--duration", "3", "--format", "json"});
    ASSERT_TRUE(bio.wait_for_output("\"marker\":\"start\"", kStartTimeout)) << bio.err();  // attached
    target.signal(SIGUSR1);
    ASSERT_TRUE(target.wait_for_output("done", 10s));
    ASSERT_EQ(bio.wait(30s), 0) << bio.err();
    unlink(file.c_str());

    int writes = 0;
    bool summary = false;
    for (const auto& l : json_lines(bio.out())) {
        if (l["type"] == "bio") {
            for (const char* k : {"pid", "sector", "bytes", "queue_ns", "latency_ns"})
                EXPECT_TRUE(l[k].is_number_unsigned()) << k;
            EXPECT_TRUE(l["time_s"].is_number());
            writes += l["comm"] == "kd-dio" && l["op"] == "W" && l["bytes"] == 65536;
        } else if (l["type"] == "bio_summary") {
            summary = true;
        }
    }
    EXPECT_EQ(writes, 4) << bio.out();
    EXPECT_TRUE(summary);
}

namespace {

const char* const kJsonStart = "\"marker\":\"start\"";

// kdelay's arguments for one sample of that many seconds, with histograms,
// as JSON.
std::vector<std::string> histogram_json_args(int seconds)
{
    return {"--sample-time", std::to_string(seconds), "--histogram", "--format", "json"};
}

// A thread's histograms by (kind, id): the sum of their buckets, each
// checked against the histogram's own count and percentiles.
std::map<std::pair<std::string, uint64_t>, uint64_t> histogram_sums(const json& t)
{
    std::map<std::pair<std::string, uint64_t>, uint64_t> hist;
    for (const auto& h : t["histograms"]) {
        uint64_t sum = 0;
        for (const auto& b : h["buckets"]) {
            EXPECT_LE(b["low"].get<uint64_t>(), b["high"].get<uint64_t>());
            sum += b["count"].get<uint64_t>();
        }
        EXPECT_EQ(sum, h["count"].get<uint64_t>());
        EXPECT_LE(h["p50_ns"].get<uint64_t>(), h["p90_ns"].get<uint64_t>());
        EXPECT_LE(h["p90_ns"].get<uint64_t>(), h["p99_ns"].get<uint64_t>());
        hist[{h["kind"], h["id"]}] = sum;
    }
    return hist;
}

}  // namespace

// A gtest: it checks every thread's histograms against its counts.
// TAGS kernel logic
TEST(JsonE2E, HistogramTotalsEqualTheCounts)
{
    KD_REQUIRE_BPF();
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(run_released(run, {kWorkload, "syscalls", "1000", "20"}, histogram_json_args(2), 10s,
                                         20s, kJsonStart));
    ASSERT_EQ(run.status, 0) << run.err;
    const uint32_t tid = workload_tid(run.workload_out, "kd-counter");

    int checked = 0;
    for (const auto& l : json_lines(run.out)) {
        if (l["type"] != "sample")
            continue;
        for (const auto& t : l["threads"]) {
            auto hist = histogram_sums(t);
            for (const auto& s : t["syscalls"]) {
                EXPECT_EQ((hist[{"syscall", s["nr"]}]), s["count"].get<uint64_t>()) << s["name"];
                ++checked;
            }
            for (const char* kind : {"run", "ready"}) {
                if (!t[kind].is_null()) {
                    EXPECT_EQ((hist[{kind, 0}]), t[kind]["count"].get<uint64_t>()) << kind;
                }
            }
            uint64_t hard = 0;
            for (const auto& irq : t["hardirqs"])
                hard += irq["count"].get<uint64_t>();
            EXPECT_EQ((hist[{"hardirq", 0}]), hard);
            for (const auto& irq : t["softirqs"])
                EXPECT_EQ((hist[{"softirq", irq["vector"]}]), irq["count"].get<uint64_t>());
            if (t["tid"] == tid) {
                EXPECT_EQ((hist[{"syscall", 110}]), 1000u) << "getppid";
                // 1 ms sleeps land in the 524288..1048575 ns slot or above.
                for (const auto& h : t["histograms"]) {
                    if (h["name"] == "nanosleep") {
                        EXPECT_GE(h["p50_ns"].get<uint64_t>(), 524288u);
                    }
                }
            }
        }
    }
    EXPECT_GT(checked, 5);
}

// A histogram value is kept where it is cheapest: RUN and READY beside the
// thread's slot, or in the hist hash for a thread whose slot another holds
// (400 threads against 256 slots put at least 144 there); a syscall's in
// its per-CPU run, added to the hash when the run is pushed out (each
// thread's getppid run is, by the next threads' runs). Wherever kept, every
// thread's histograms must match its counts.
// A gtest: it checks every thread's histograms against its counts.
TEST(JsonE2E, HistogramsMatchTheCountsInSlotsHashAndPerCpuRuns)
{
    KD_REQUIRE_BPF();
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(
        run_released(run, {kWorkload, "threads", "400"}, histogram_json_args(3), 20s, 20s, kJsonStart));
    ASSERT_EQ(run.status, 0) << run.err;

    int runs = 0, getppids = 0;
    for (const auto& l : json_lines(run.out)) {
        if (l["type"] != "sample")
            continue;
        for (const auto& t : l["threads"]) {
            auto hist = histogram_sums(t);
            for (const char* kind : {"run", "ready"}) {
                if (t[kind].is_null())
                    continue;
                EXPECT_EQ((hist[{kind, 0}]), t[kind]["count"].get<uint64_t>()) << kind << " of " << t["tid"];
                runs += kind == std::string("run");
            }
            for (const auto& sc : t["syscalls"]) {
                EXPECT_EQ((hist[{"syscall", sc["nr"]}]), sc["count"].get<uint64_t>())
                    << sc["name"] << " of " << t["tid"];
                getppids += sc["name"] == "getppid";
            }
        }
    }
    EXPECT_GE(runs, 400);
    EXPECT_EQ(getppids, 400);
}
