// kdelay annotate end to end: records from `kdelay record` against kd_spdk
// annotate a trace built around them; bad input gets one line and an exit
// code without losing what was printed; any user, any size, file or stdin.
#include <csignal>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <sys/stat.h>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;

namespace {

const std::string kSpdk = KD_SPDK_BIN;
const std::string kGenerate = KD_GEN_TRACE_BIN;

std::string temp(const std::string& what) { return "/tmp/kdelay-annotate-" + std::to_string(getpid()) + "-" + what; }

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

std::vector<std::string> lines(const std::string& text)
{
    std::vector<std::string> v;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
        v.push_back(l);
    return v;
}

struct Qpair {
    uint64_t ptr, add_tsc, remove_tsc, thread;
    int qid;  // 0: no ctrlr add (a failed connect)
};

// The lifetimes in kdelay record's output, in add order.
std::vector<Qpair> qpairs_of(const std::string& records)
{
    static const std::regex re(R"(^(\w+): tsc=0x([0-9a-f]+), qpair=0x([0-9a-f]+), (thread|qid)=0x([0-9a-f]+))");
    std::vector<Qpair> q;
    for (const auto& l : lines(records)) {
        std::smatch m;
        if (!std::regex_search(l, m, re))
            continue;
        const uint64_t tsc = std::stoull(m[2], nullptr, 16), ptr = std::stoull(m[3], nullptr, 16);
        const uint64_t v = std::stoull(m[5], nullptr, 16);
        if (m[1] == "nvmf_poll_group_add_qpair")
            q.push_back({ptr, tsc, 0, v, 0});
        for (auto& x : q)
            if (x.ptr == ptr && m[1] == "nvmf_ctrlr_add_qpair")
                x.qid = static_cast<int>(v);
            else if (x.ptr == ptr && m[1] == "nvmf_poll_group_remove_qpair" && !x.remove_tsc)
                x.remove_tsc = tsc;
    }
    return q;
}

const char* kTpoints =
    R"({"name":"RDMA_REQ_NEW","id":352,"new_object":true,"args":[{"name":"qpair","type":1,"size":8},{"name":"qd","type":0,"size":4}]},)"
    R"({"name":"RDMA_REQ_COMPLETED","id":363,"new_object":false,"args":[{"name":"qpair","type":1,"size":8},{"name":"qd","type":0,"size":4}]})";

}  // namespace

// A gtest: two kdelay runs, the second over a trace file built from the first's records.
TEST(AnnotateE2E, RecordThenAnnotate)
{
    KD_REQUIRE_BPF();
    Process app({kSpdk, "3"});
    ASSERT_TRUE(app.wait_for_output("ready", 5s));
    const std::string records = temp("records.txt"), trace = temp("trace.json");
    Process rec({kKdelay, "record", "-p", std::to_string(app.pid()), "-o", records});
    ASSERT_TRUE(wait_until_recording(rec)) << rec.err();
    app.signal(SIGUSR1);
    ASSERT_TRUE(app.wait_for_output("done", 10s));
    ASSERT_EQ(rec.wait(20s), 0) << rec.err();
    std::stringstream recorded;
    recorded << std::ifstream(records).rdbuf();
    const auto q = qpairs_of(recorded.str());
    ASSERT_EQ(q.size(), 4u) << recorded.str();

    // Per lifetime: a request at its add TSC (inside) and one just after its remove.
    std::string entries;
    uint64_t first = q[0].add_tsc;
    for (const auto& x : q) {
        entries += fmt::format(R"({}{{"lcore":0,"tpoint":352,"tsc":{},"poller":"r00","size":4096,)"
                               R"("object":{{"id":"R1","value":1}},"args":[{},1]}},)",
                               entries.empty() ? "" : "", x.add_tsc, x.ptr);
        entries += fmt::format(R"({{"lcore":1,"tpoint":363,"tsc":{},"object":{{"id":"R1","time":5,"value":1}},)"
                               R"("args":[{},0]}})",
                               x.remove_tsc + 1, x.ptr);
        entries += ",";
        first = std::min(first, x.add_tsc);
    }
    entries.pop_back();
    write(trace, std::string(R"({"tsc_rate":2300000000,"tpoints":[)") + kTpoints + R"(],"entries":[)" + entries + "]}");

    Result r = run({kKdelay, "annotate", "-i", trace, "-b", records}, 20s);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto out = lines(r.out);
    ASSERT_EQ(out.size(), 8u) << r.out;
    const std::string host = "nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0034-5310-8057-b1c04f4b4a32";
    // The second host's hostile NQN, as record escaped it: still one line.
    const std::string hostile = "nqn.evil\\x27\\x1b[2J\\x0anvmf_poll_group_remove_qpair: tsc=0x1";
    const std::string sub = "nqn.2016-06.io.spdk:" + std::string(180, 'c');
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_NE(out[2 * i].find(fmt::format("qpair(ptr=0x{:x}, thread=7, qid={}, subnqn={}, hostnqn={}), qd: 1",
                                              q[i].ptr, i + 1, sub, i == 1 ? hostile : host)),
                  std::string::npos)
            << out[2 * i];
        EXPECT_NE(out[2 * i + 1].find(fmt::format("qpair: 0x{:x}, qd: 0", q[i].ptr)), std::string::npos)
            << "after its remove: " << out[2 * i + 1];
    }
    EXPECT_NE(out[6].find(fmt::format("qpair(ptr=0x{:x}, thread=8), qd: 1", q[3].ptr)), std::string::npos)
        << "a failed connect: " << out[6];
    EXPECT_EQ(out[0].substr(0, 24), "  0            0.000 r00");

    Result j = run({kKdelay, "annotate", "-i", trace, "-b", records, "--format", "json"}, 20s);
    ASSERT_EQ(j.status, 0) << j.err;
    const auto first_json = nlohmann::json::parse(lines(j.out).at(0));
    EXPECT_EQ(first_json["args"][0]["annotation"]["qid"], 1);
    EXPECT_EQ(first_json["args"][0]["annotation"]["hostnqn"], host);
    unlink(records.c_str());
    unlink(trace.c_str());
}

// A gtest: truncated and malformed files made on the fly.
TEST(AnnotateE2E, BadInputIsOneLineAndKeepsWhatWasPrinted)
{
    const std::string trace = temp("bad.json"), records = temp("bad.txt");
    const std::string good = std::string(R"({"tsc_rate":1000,"tpoints":[)") + kTpoints + R"(],"entries":[)" +
                             R"({"lcore":0,"tpoint":352,"tsc":10,"args":[1,2]},)" +
                             R"({"lcore":0,"tpoint":352,"tsc":20,"args":[1,2]},)" +
                             R"({"lcore":0,"tpoint":352,"tsc":30,"args":[1,2]}]})";
    write(trace, good.substr(0, good.size() - 20));
    Result r = run({kKdelay, "annotate", "-i", trace}, 20s);
    EXPECT_EQ(r.status, 65);
    EXPECT_EQ(lines(r.out).size(), 2u) << "the two complete entries stay printed: " << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("byte " + std::to_string(good.size() - 20) + ": invalid JSON: the input ends too early"),
              std::string::npos)
        << r.err;

    write(trace, good);
    write(records, "Attaching 3 probes...\nnvmf_poll_group_add_qpair: tsc=0x1, qpair=0x1, thread=oops\n");
    r = run({kKdelay, "annotate", "-i", trace, "-b", records}, 20s);
    EXPECT_EQ(r.status, 65);
    EXPECT_TRUE(r.out.empty()) << "records are read first";
    EXPECT_EQ(r.err, "kdelay: " + records +
                         ": line 2: nvmf_poll_group_add_qpair: argument 'thread': 'oops' is not a hex integer of "
                         "64 bits\n");

    r = run({kKdelay, "annotate", "-i", "/nonexistent/trace.json"}, 20s);
    EXPECT_EQ(r.status, 66);
    EXPECT_EQ(r.err, "kdelay: cannot open /nonexistent/trace.json: No such file or directory\n");
    r = run({kKdelay, "annotate", "-i", trace, "-b", "/nonexistent/records.txt"}, 20s);
    EXPECT_EQ(r.status, 66);
    r = run({kKdelay, "annotate", "--bogus"}, 20s);
    EXPECT_EQ(r.status, 64);
    r = run({"/bin/sh", "-c", kKdelay + " annotate -i " + trace + " > /dev/full"}, 20s);
    EXPECT_EQ(r.status, 74);
    EXPECT_EQ(r.err, "kdelay: cannot write the output: No space left on device\n");
    unlink(trace.c_str());
    unlink(records.c_str());
}

// trace.py fails on a JSON file over ~7 MiB given with -i (libmagic
// misdetects it); kdelay reads any size, from a file or stdin, as any user.
// A gtest: another user, stdin and a file made on the fly.
TEST(AnnotateE2E, LargeInputFromFileOrStdinAsAnyUser)
{
    const std::string trace = temp("large.json"), records = temp("large.txt");
    Result g = run({kGenerate, "100000", "64", trace, records}, 60s);
    ASSERT_EQ(g.status, 0) << g.err;
    std::ifstream probe(trace, std::ios::ate);
    EXPECT_GT(static_cast<long>(probe.tellg()), 8L << 20);
    chmod(trace.c_str(), 0644);
    chmod(records.c_str(), 0644);

    Result f = run({kKdelay, "annotate", "-i", trace, "-b", records}, 60s, 65534);
    ASSERT_EQ(f.status, 0) << f.err;
    EXPECT_EQ(std::count(f.out.begin(), f.out.end(), '\n'), 100000);
    size_t annotated = 0;
    for (size_t at = 0; (at = f.out.find("qpair(ptr=", at)) != std::string::npos; ++at)
        ++annotated;
    EXPECT_EQ(annotated, 75000u) << "three in four generated entries are requests inside a lifetime";
    Result s = run({"/bin/sh", "-c", kKdelay + " annotate -b " + records + " < " + trace}, 60s);
    ASSERT_EQ(s.status, 0) << s.err;
    EXPECT_EQ(s.out, f.out);
    unlink(trace.c_str());
    unlink(records.c_str());
}
