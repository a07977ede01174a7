#include "report/writers.h"

#include <gtest/gtest.h>

#include "block/bio_tables.h"
#include "delay/report_sections.h"
#include <nlohmann/json.hpp>
#include <sstream>

using namespace kdelay;
using nlohmann::json;

namespace {

std::vector<json> lines(const std::string& text)
{
    std::vector<json> out;
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l))
        out.push_back(json::parse(l));
    return out;
}

}  // namespace

TEST(JsonWriter, SampleHasEverySectionWithRawNanoseconds)
{
    Sample s;
    s.poll_nr = 7;
    ThreadSample t;
    t.tid = 42;
    t.name = "worker";
    t.syscalls = {{110, "getppid", {1000, 2000000, 100, 90000}}};
    t.run = Stat{3, 30, 5, 15};
    t.softirqs = {{"net_rx", 3, {2, 20, 8, 12}}};
    t.blockio = {{"vda", 'W', 65536, {1, 100000, 100000, 100000}}};
    s.threads = {t};
    s.events = {{10, 30, 42, 40, "worker", 35, "nanosleep", {"f+0x1 [kernel]"}, false, ""}};
    std::ostringstream out;
    make_json_writer(out)->report(delay_report(s));
    auto j = lines(out.str());
    ASSERT_EQ(j.size(), 1u);
    EXPECT_EQ(j[0]["type"], "sample");
    const json& th = j[0]["threads"][0];
    EXPECT_EQ(th["tid"], 42);
    EXPECT_EQ(th["syscalls"][0]["name"], "getppid");
    EXPECT_EQ(th["syscalls"][0]["count"], 1000);
    EXPECT_EQ(th["syscalls"][0]["total_ns"], 2000000);
    EXPECT_EQ(th["run"]["max_ns"], 15);
    EXPECT_TRUE(th["ready"].is_null());
    EXPECT_EQ(th["softirqs"][0]["vector"], 3);
    EXPECT_EQ(th["block_io"][0]["op"], "W");
    EXPECT_EQ(th["block_io"][0]["bytes"], 65536);
    EXPECT_EQ(j[0]["syscall_events"][0]["delta_ns"], 20);
    EXPECT_EQ(j[0]["syscall_events"][0]["frames"][0], "f+0x1 [kernel]");
    EXPECT_TRUE(j[0]["upcalls"].is_null()) << "not counted";
}

TEST(JsonWriter, UpcallsPerCpuAndByErrno)
{
    Sample s;
    UpcallStats up;
    up.total = {{0, 10}, {1, 5}};
    up.succeeded = {{0, 9}, {1, 3}};
    up.failed = {{11, {{0, 1}, {1, 2}}}};
    s.upcalls = up;
    std::ostringstream out;
    make_json_writer(out)->report(delay_report(s));
    const json u = lines(out.str())[0]["upcalls"];
    EXPECT_EQ(u["total"], 15);
    EXPECT_EQ(u["per_cpu"]["1"], 5);
    EXPECT_EQ(u["succeeded"], 12);
    EXPECT_EQ(u["errors"][0]["errno"], 11);
    EXPECT_EQ(u["errors"][0]["name"], "EAGAIN");
    EXPECT_EQ(u["errors"][0]["count"], 3);

    s.upcalls->results_known = false;  // the tracepoint: totals only
    s.upcalls->succeeded.clear();
    s.upcalls->failed.clear();
    out.str("");
    make_json_writer(out)->report(delay_report(s));
    const json t = lines(out.str())[0]["upcalls"];
    EXPECT_EQ(t["total"], 15);
    EXPECT_FALSE(t.contains("errors"));
}

TEST(JsonWriter, HostileNamesAreEscapedAndStayValid)
{
    Sample s;
    ThreadSample t;
    t.tid = 1;
    t.name = std::string("q\"b\\s\n\t\x01 \xff\xfe end");  // quotes, backslash, controls, invalid UTF-8
    t.run = Stat{1, 1, 1, 1};
    s.threads = {t};
    std::ostringstream out;
    auto w = make_json_writer(out);
    w->report(delay_report(s));
    w->note("note with \"quotes\"");
    const std::string text = out.str();
    ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << "one line per object";
    auto j = lines(text);
    const std::string name = j[0]["threads"][0]["name"];
    EXPECT_EQ(name.substr(0, 8), "q\"b\\s\n\t\x01");
    EXPECT_NE(name.find("\xef\xbf\xbd"), std::string::npos) << "invalid bytes become U+FFFD";
    EXPECT_EQ(j[1]["text"], "note with \"quotes\"");
}

TEST(JsonWriter, MarkersAndBiosnoop)
{
    std::ostringstream out;
    auto w = make_json_writer(out);
    w->marker({Marker::Kind::dump, std::chrono::system_clock::time_point(std::chrono::seconds(5)),
              std::nullopt, 1234});
    w->row(bio_columns(true), bio_row({0.5, "dd", 7, "vda", 'R', 8, 4096, 10, 20}));
    w->table(bio_summary_table({{"vda", 'R', 1, 4096, 20, 20}}));
    w->rows_begin(bio_columns(true));  // a start marker: tracing has begun
    auto j = lines(out.str());
    ASSERT_EQ(j.size(), 4u);
    EXPECT_EQ(j[3]["type"], "marker");
    EXPECT_EQ(j[3]["marker"], "start");
    EXPECT_EQ(j[0]["marker"], "dump");
    EXPECT_EQ(j[0]["time_unix_ns"], 5000000000LL);
    EXPECT_EQ(j[0]["delta_ns"], 1234);
    EXPECT_FALSE(j[0].contains("trigger_ns"));
    EXPECT_EQ(j[1]["type"], "bio");
    EXPECT_EQ(j[1]["latency_ns"], 20);
    EXPECT_EQ(j[2]["rows"][0]["count"], 1);
}
