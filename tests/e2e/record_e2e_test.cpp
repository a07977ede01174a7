// kdelay record end to end, against kd_spdk: SPDK's qpair probes with the
// same argument layout under provider "spdk".
#include <csignal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

const std::string kSpdk = KD_SPDK_BIN;

struct RecordLine {
    std::string name;
    std::map<std::string, std::string> args;
};

// Parsed as trace.py parses them: "(\w+): (.*)", then "k=v" split on ", ".
std::vector<RecordLine> record_lines(const std::string& out)
{
    static const std::regex line_re(R"(^(\w+): (.*)$)");
    std::vector<RecordLine> lines;
    std::istringstream in(out);
    std::string l;
    std::smatch m;
    while (std::getline(in, l)) {
        if (!std::regex_match(l, m, line_re))
            continue;
        RecordLine r{m[1], {}};
        std::istringstream args(m[2].str());
        for (std::string a; std::getline(args, a, ',');) {
            a.erase(0, a.find_first_not_of(' '));
            const auto eq = a.find('=');
            r.args[a.substr(0, eq)] = a.substr(eq + 1);
        }
        lines.push_back(r);
    }
    return lines;
}

}  // namespace

// A gtest: record writes text in trace.py's format, not kdelay's JSON.
TEST(RecordE2E, RecordsEveryQpairProbeInTracePyFormat)
{
    KD_REQUIRE_BPF();
    Process app({kSpdk, "3"});
    ASSERT_TRUE(app.wait_for_output("ready", 5s));
    Process rec({kKdelay, "record", "-p", std::to_string(app.pid())});
    ASSERT_TRUE(wait_until_recording(rec)) << rec.err();
    ASSERT_NE(rec.err().find("recording 3 USDT probes"), std::string::npos) << rec.err();
    app.signal(SIGUSR1);
    ASSERT_TRUE(app.wait_for_output("done", 10s));
    ASSERT_EQ(rec.wait(20s), 0) << rec.err();  // ends when the target exits

    const auto lines = record_lines(rec.out());
    ASSERT_EQ(lines.size(), 11u) << rec.out();  // 3 x (add, ctrlr add, remove) + failed add/remove
    std::map<std::string, int> count;
    uint64_t last_tsc = 0;
    for (const auto& l : lines) {
        ++count[l.name];
        const uint64_t tsc = std::stoull(l.args.at("tsc"), nullptr, 16);
        EXPECT_GT(tsc, last_tsc) << "arrival order is TSC order here";
        last_tsc = tsc;
        EXPECT_EQ(l.args.at("qpair").rfind("0x", 0), 0u);
        if (l.name == "nvmf_ctrlr_add_qpair") {
            const int n = count[l.name];
            EXPECT_EQ(l.args.at("qid"), "0x" + std::to_string(n)) << "2@8(%rdi) memory operand";
            // The second host's NQN holds a quote, an escape sequence and a
            // line break with a forged record after it: shown escaped.
            EXPECT_EQ(l.args.at("hostnqn"),
                      n == 2 ? "'nqn.evil\\x27\\x1b[2J\\x0anvmf_poll_group_remove_qpair: tsc=0x1'"
                             : "'nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0034-5310-8057-b1c04f4b4a32'");
            EXPECT_EQ(l.args.at("subnqn"), "'nqn.2016-06.io.spdk:" + std::string(180, 'c') + "'")
                << "strings up to 223 bytes";
        } else {
            EXPECT_TRUE(l.args.count("thread"));
        }
    }
    EXPECT_EQ(count["nvmf_poll_group_add_qpair"], 4);
    EXPECT_EQ(count["nvmf_ctrlr_add_qpair"], 3);
    EXPECT_EQ(count["nvmf_poll_group_remove_qpair"], 4);
}

// A gtest: it reads the file record wrote.
TEST(RecordE2E, CtrlCFlushesToTheOutputFile)
{
    KD_REQUIRE_BPF();
    Process app({kSpdk, "2"});
    ASSERT_TRUE(app.wait_for_output("ready", 5s));
    const std::string file = "/tmp/kdelay-record-" + std::to_string(getpid()) + ".txt";
    Process rec({kKdelay, "record", "-p", std::to_string(app.pid()), "-o", file});
    ASSERT_TRUE(wait_until_recording(rec)) << rec.err();
    // The app stays alive (it waits for SIGUSR1 again? no: it exits), so stop
    // the recording with Ctrl-C before it fires anything, then after.
    rec.signal(SIGINT);
    ASSERT_EQ(rec.wait(20s), 0) << rec.err();
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_TRUE(record_lines(ss.str()).empty());
    EXPECT_TRUE(rec.out().empty()) << "records go to the file, not stdout";
    unlink(file.c_str());
}

// A gtest: record's generated program and several runs.
TEST(RecordE2E, GeneratedProgramAndBadInput)
{
    Result g = run({kKdelay, "record", "-g"}, 20s);
    ASSERT_EQ(g.status, 0) << g.err;
    EXPECT_NE(g.out.find("/* spdk:nvmf_ctrlr_add_qpair */"), std::string::npos) << g.out;
    EXPECT_NE(g.out.find("bpf_probe_read_user_str"), std::string::npos);
    EXPECT_EQ(g.out.find("#include"), std::string::npos);

    const std::string bad = "/tmp/kdelay-bad-probes-" + std::to_string(getpid()) + ".json";
    for (const std::string& doc : {std::string("{"),
                                   std::string(R"({"provider":"spdk","usdt":[{"probe":"x); evil(","args":[]}]})"),
                                   std::string(R"({"provider":"spdk","usdt":[{"probe":"p","args":[{"name":"a","pos":12,"type":"int"}]}]})"),
                                   std::string(R"({"provider":"spdk","usdt":[{"probe":"p","args":[{"name":"a","pos":0,"type":"float"}]}]})")}) {
        std::ofstream(bad) << doc;
        Result r = run({kKdelay, "record", "-g", "--probes", bad}, 20s);
        EXPECT_EQ(r.status, 65) << doc << "\n" << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    unlink(bad.c_str());
    Result missing = run({kKdelay, "record", "-g", "--probes", "/nonexistent/probes.json"}, 20s);
    EXPECT_EQ(missing.status, 66) << missing.err;
}

// A gtest: record's JSON, whose objects are not the delay report's.
TEST(RecordE2E, JsonLines)
{
    KD_REQUIRE_BPF();
    Process app({kSpdk, "2"});
    ASSERT_TRUE(app.wait_for_output("ready", 5s));
    Process rec({kKdelay, "record", "-p", std::to_string(app.pid()), "--format", "json"});
    ASSERT_TRUE(wait_until_recording(rec)) << rec.err();
    app.signal(SIGUSR1);
    ASSERT_TRUE(app.wait_for_output("done", 10s));
    ASSERT_EQ(rec.wait(20s), 0) << rec.err();
    std::istringstream in(rec.out());
    int ctrlr = 0, lines = 0;
    for (std::string l; std::getline(in, l); ++lines) {
        const auto j = nlohmann::json::parse(l);
        EXPECT_EQ(j["type"], "record");
        EXPECT_TRUE(j["args"]["tsc"].is_number_unsigned());
        if (j["probe"] == "nvmf_ctrlr_add_qpair") {
            ++ctrlr;
            EXPECT_EQ(j["args"]["qid"], ctrlr);
            EXPECT_EQ(j["args"]["subnqn"].get<std::string>().size(), 200u);
        }
    }
    EXPECT_EQ(lines, 8);  // 2 x 3 + the failed connect's 2
    EXPECT_EQ(ctrlr, 2);
}

// A gtest: a full device as the output file.
TEST(RecordE2E, AWriteErrorIsExit74)
{
    KD_REQUIRE_BPF();
    Process app({kSpdk, "2"});
    ASSERT_TRUE(app.wait_for_output("ready", 5s));
    Process rec({kKdelay, "record", "-p", std::to_string(app.pid()), "-o", "/dev/full"});
    ASSERT_TRUE(wait_until_recording(rec)) << rec.err();
    app.signal(SIGUSR1);
    EXPECT_EQ(rec.wait(20s), 74);
    EXPECT_NE(rec.err().find("kdelay: cannot write /dev/full: No space left on device"), std::string::npos)
        << rec.err();
}
