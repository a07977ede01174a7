#include "report/writers.h"

#include <fstream>
#include <gtest/gtest.h>

#include "block/bio_tables.h"
#include "delay/report_sections.h"
#include <sstream>

using namespace kdelay;

namespace {

Sample example_sample()
{
    Sample s;
    s.poll_nr = 7;
    ThreadSample reval;
    reval.tid = 31741;
    reval.name = "revalidator122";
    reval.syscalls = {{7, "poll", {5, 184193176, 1000, 184191520}},
                      {47, "recvmsg", {494, 125208756, 100, 310331}},
                      {202, "futex", {8, 18768758, 10, 4023039}},
                      {1, "write", {1, 5949, 5949, 5949}}};
    reval.long_poll = Stat{4, 2000000, 300000, 900000};
    reval.run = Stat{6, 136764071, 1480, 115146424};
    reval.ready = Stat{7, 11334, 100, 6636};
    reval.stopped = Stat{1, 5000000000ull, 5000000000ull, 5000000000ull};
    reval.hardirqs = {{"eno8303-rx-1", 0, {1, 3586, 3586, 3586}}};
    reval.softirqs = {{"net_rx", 3, {1, 17699, 17699, 17699}}, {"sched", 7, {6, 13820, 1000, 3226}}};
    reval.blockio = {{"nvme0n1", 'W', 1048576, {16, 2500000, 90000, 400000}},
                     {"vda", 'R', 4096, {1, 120000, 120000, 120000}}};
    ThreadSample quiet;  // no syscalls: the syscall header alone, then run time
    quiet.tid = 27090;
    quiet.name = "ovs-vswitchd";
    quiet.run = Stat{2, 3000, 1000, 2000};
    ThreadSample poll_only;  // only poll: no TOTAL( - poll) line
    poll_only.tid = 5;
    poll_only.name = "urcu3";
    poll_only.syscalls = {{7, "poll", {1, 10, 10, 10}}};
    s.threads = {quiet, reval, poll_only};
    UpcallStats up;
    up.total = {{0, 8937}, {1, 14466}};
    up.succeeded = {{0, 5945}, {1, 6379}};
    up.failed = {{11, {{0, 2992}, {1, 8085}}}, {105, {{0, 0}, {1, 2}}}};
    s.upcalls = up;
    s.events = {{2104574887807, 2104580127960, 31741, 27090, "revalidator122", 7, "poll",
                 {"do_sys_poll+0x1a [kernel]", "[unknown] 0x7f0011"}, false, ""},
                {1000, 1999, 5, 27090, "urcu3", 202, "futex", {}, false, ""}};
    return s;
}

std::string read_file(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

TEST(TextWriter, SampleMatchesGoldenText)
{
    std::ostringstream out;
    auto writer = make_text_writer(out);
    writer->report(delay_report(example_sample()));
    writer->note("Target process 1 exited; the sample ends here");
    writer->warning("the thread map was full; 3 updates were lost and the numbers above are incomplete.");

    // Made by make_delay_report.py from upstream's layout rules, not by this writer->
    EXPECT_EQ(out.str(), read_file(std::string(KDELAY_GOLDEN_DIR) + "/delay_report.txt"));
}

TEST(TextWriter, UpcallsWithoutFailuresShowOnlyTheTotal)
{
    std::ostringstream out;
    auto writer = make_text_writer(out);
    Sample s;
    s.upcalls = UpcallStats{};
    writer->report(delay_report(s));
    EXPECT_EQ(out.str().find("UPCALL"), std::string::npos) << "no upcall, no section";
    out.str("");
    s.upcalls->total = {{0, 0}, {1, 300}};
    s.upcalls->succeeded = {{1, 300}};
    writer->report(delay_report(s));
    const std::string text = out.str();
    EXPECT_NE(text.find("\n\n\n# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):\n"
                        "  Total upcalls       : 300 [1: 300]\n"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find("Successfull"), std::string::npos) << text;
}

TEST(TextWriter, MarkersCarryTheTimestamp)
{
    std::ostringstream out;
    auto writer = make_text_writer(out);
    const auto now = std::chrono::system_clock::now();
    writer->marker({Marker::Kind::start, now, std::nullopt, std::nullopt});
    EXPECT_EQ(out.str().rfind("# Start sampling @", 0), 0u);
    EXPECT_NE(out.str().find(" UTC)\n"), std::string::npos);
    out.str("");
    writer->marker({Marker::Kind::start, now, 2104574887807, std::nullopt});
    writer->marker({Marker::Kind::stop, now, 2104580127960, std::nullopt});
    writer->marker({Marker::Kind::dump_skipped, now, std::nullopt, 5240153});
    writer->marker({Marker::Kind::dump, now, std::nullopt, 50314205});
    writer->marker({Marker::Kind::dump, now, std::nullopt, std::nullopt});
    const std::string text = out.str();
    EXPECT_NE(text.find("# Start sampling (trigger@2104574887807) @"), std::string::npos) << text;
    EXPECT_NE(text.find("# Stop sampling (trigger@2104580127960) @"), std::string::npos) << text;
    EXPECT_NE(text.find("# Sample dump skipped, delta 5,240,153 ns @"), std::string::npos) << text;
    EXPECT_NE(text.find("# Triggered sample dump, stop-start delta 50,314,205 ns @"), std::string::npos) << text;
    EXPECT_NE(text.find("# Sample dump @"), std::string::npos) << text;
}

TEST(TextWriter, BiosnoopLinesInBiosnoopsLayout)
{
    std::ostringstream out;
    auto writer = make_text_writer(out);
    writer->rows_begin(bio_columns(true));
    writer->row(bio_columns(true), bio_row(BioEvent{0.000021, "kd-dio-with-a-long-name", 9668, "vda", 'W', 37228672, 65536,
                              12345, 98765}));
    writer->rows_begin(bio_columns(false));
    writer->row(bio_columns(false), bio_row(BioEvent{1.5, "dd", 7, "nvme0n1", 'R', 8, 4096, 0, 2500000}));
    writer->table(bio_summary_table({{"vda", 'W', 2, 131072, 200000, 150000}}));
    EXPECT_EQ(out.str(),
              "TIME(s)     COMM           PID    DISK    T SECTOR     BYTES   QUE(ms) LAT(ms)\n"
              "0.000021    kd-dio-with-a- 9668   vda     W 37228672   65536      0.01    0.10\n"
              "TIME(s)     COMM           PID    DISK    T SECTOR     BYTES   LAT(ms)\n"
              "1.500000    dd             7      nvme0n1 R 8          4096       2.50\n"
              "\n# Summary per disk and operation\n"
              "DISK       T      COUNT            BYTES  AVG LAT(ms)  MAX LAT(ms)\n"
              "vda        W          2          131,072        0.100        0.150\n");
}

TEST(TextWriter, DiagnosticsAreKdelaysStderrLines)
{
    std::ostringstream err;
    auto log = make_diagnostics_writer(err);
    log->note("recording 3 USDT probes of process 7; Ctrl-C to stop");
    log->warning("5 records were lost (ring buffer full)");
    EXPECT_EQ(err.str(), "kdelay: recording 3 USDT probes of process 7; Ctrl-C to stop\n"
                         "kdelay: warning: 5 records were lost (ring buffer full)\n");
}

// biosnoop's COMM is the issuing task's name: shown escaped, as every name.
TEST(TextWriter, BiosnoopCommIsShownEscaped)
{
    std::ostringstream out;
    auto writer = make_text_writer(out);
    writer->row(bio_columns(false), bio_row(BioEvent{1.5, "dd\x1b[2J\n#", 7, "vda", 'R', 8, 4096, 0, 2500000}));
    EXPECT_EQ(out.str(), "1.500000    dd\\x1b[2J\\x0a# 7      vda     R 8          4096       2.50\n");
}
