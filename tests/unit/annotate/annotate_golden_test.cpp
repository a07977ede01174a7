// kdelay annotate against fixtures whose expected output SPDK's trace.py
// printed (data/*.trace_py.txt) or that document where kdelay differs on
// purpose (data/README.md).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

#include "annotate/annotate.h"
#include "core/error.h"
#include "record/record_set.h"

using namespace kdelay;

namespace {

const std::string kData = KDELAY_ANNOTATE_DATA_DIR;

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in) << path;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

AnnotateConfig config(const std::string& trace, const std::string& records, bool only_listed)
{
    AnnotateConfig cfg;
    cfg.input = kData + "/" + trace;
    cfg.records = records.empty() ? "" : kData + "/" + records;
    cfg.set = load_record_sets({});
    if (only_listed)
        for (auto& a : cfg.set.annotations)
            a.any_tpoint_with_key = false;
    return cfg;
}

// Runs annotate into a temporary file; returns what it printed.
std::string annotate(const AnnotateConfig& cfg)
{
    std::FILE* out = std::tmpfile();
    run_annotate(cfg, out);
    std::fflush(out);
    std::rewind(out);
    std::string text;
    char buf[65536];
    for (size_t n; (n = std::fread(buf, 1, sizeof(buf), out)) > 0;)
        text.append(buf, n);
    std::fclose(out);
    return text;
}

struct Golden {
    const char* trace;
    const char* records;
    const char* expected;
    bool only_listed;
};

class AnnotateGolden : public testing::TestWithParam<Golden> {};

}  // namespace

TEST_P(AnnotateGolden, PrintsTheExpectedBytes)
{
    const Golden& g = GetParam();
    EXPECT_EQ(annotate(config(g.trace, g.records, g.only_listed)), slurp(kData + "/" + g.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, AnnotateGolden,
    testing::Values(Golden{"trace_classic.json", "records_classic.txt", "classic.trace_py.txt", true},
                    Golden{"trace_classic_pretty.json", "records_classic.txt", "classic.trace_py.txt", true},
                    Golden{"trace_classic.json", "records_classic.txt", "classic.trace_py.txt", false},
                    Golden{"trace_stress.json", "records_stress.txt", "stress.trace_py.txt", true},
                    Golden{"trace_rate1.json", "records_stress.txt", "rate1.trace_py.txt", true},
                    Golden{"trace_rate3.json", "records_stress.txt", "rate3.trace_py.txt", true},
                    Golden{"trace_rate_huge.json", "records_stress.txt", "rate_huge.trace_py.txt", true},
                    Golden{"trace_extension.json", "records_classic.txt", "extension.txt", false},
                    Golden{"trace_owners.json", "records_classic.txt", "owners.txt", false}));

TEST(Annotate, WithoutRecordsNothingIsAnnotated)
{
    const std::string out = annotate(config("trace_classic.json", "", false));
    EXPECT_EQ(out.find("qpair("), std::string::npos);
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 14);
}

// By default, beyond trace.py, the second RDMA_REQ_NEW definition of the
// stress fixture (id 7: trace.py annotates only the first of a name) is
// annotated too, as a tracepoint with a qpair argument; nothing else changes.
TEST(Annotate, DefaultDiffersFromTracePyOnlyOnTracepointsOutsideItsList)
{
    const auto annotated = [](AnnotateConfig cfg) {
        cfg.json = true;
        std::vector<std::pair<uint64_t, bool>> v;  // tpoint id, annotated
        std::istringstream in(annotate(cfg));
        for (std::string l; std::getline(in, l);) {
            const auto e = nlohmann::json::parse(l);
            bool any = false;
            for (const auto& a : e["args"])
                any = any || a.contains("annotation");
            v.emplace_back(e["tpoint_id"].get<uint64_t>(), any);
        }
        return v;
    };
    const auto wide = annotated(config("trace_stress.json", "records_stress.txt", false));
    const auto listed = annotated(config("trace_stress.json", "records_stress.txt", true));
    ASSERT_EQ(wide.size(), listed.size());
    int differing = 0;
    for (size_t i = 0; i < wide.size(); ++i) {
        if (wide[i] == listed[i])
            continue;
        ++differing;
        EXPECT_EQ(wide[i].first, 7u) << "entry " << i;
        EXPECT_TRUE(wide[i].second && !listed[i].second) << "entry " << i;
    }
    EXPECT_GT(differing, 0);
}

TEST(Annotate, JsonLinesCarryTheSameAnnotations)
{
    AnnotateConfig cfg = config("trace_stress.json", "records_stress.txt", true);
    const std::string text = annotate(cfg);
    cfg.json = true;
    std::istringstream json_lines(annotate(cfg));
    std::istringstream text_lines(text);
    const auto doc = nlohmann::json::parse(slurp(kData + "/trace_stress.json"));
    size_t n = 0;
    // One line an entry in both: a string's newline is escaped in the text.
    for (std::string j, t; std::getline(json_lines, j) && std::getline(text_lines, t); ++n) {
        const auto e = nlohmann::json::parse(j);
        const auto& in = doc["entries"][n];
        EXPECT_EQ(e["type"], "spdk_entry");
        EXPECT_EQ(e["index"], n);
        EXPECT_EQ(e["lcore"], in["lcore"]);
        EXPECT_EQ(e["tsc"], in["tsc"]);
        EXPECT_TRUE(e["ns"].is_number_integer());
        EXPECT_TRUE(e["tpoint"].is_string() && e["tpoint_id"] == in["tpoint"]);
        ASSERT_TRUE(e["args"].is_array());
        bool annotated = false;
        for (const auto& a : e["args"]) {
            EXPECT_TRUE(a["name"].is_string());
            EXPECT_TRUE(a["value"].is_number_unsigned() || a["value"].is_string());
            if (a.contains("annotation")) {
                annotated = true;
                const auto& p = a["annotation"];
                EXPECT_EQ(p["ptr"], fmt::format("0x{:x}", a["value"].get<uint64_t>()));
                EXPECT_TRUE(p["thread"].is_number_unsigned());
                if (p.contains("qid")) {
                    EXPECT_TRUE(p["qid"].is_number_unsigned() && p["subnqn"].is_string() &&
                                p["hostnqn"].is_string());
                }
            }
        }
        EXPECT_EQ(annotated, t.find("qpair(") != std::string::npos) << t;
        if (in.contains("object") && in["object"].contains("time")) {
            EXPECT_EQ(e["object"]["time_tsc"], in["object"]["time"]);
        }
    }
    EXPECT_EQ(n, doc["entries"].size());
}

TEST(Annotate, AFaultKeepsWhatWasPrintedBeforeIt)
{
    const std::string whole = slurp(kData + "/trace_classic.json");
    const std::string cut = "/tmp/kdelay-annotate-cut-" + std::to_string(getpid()) + ".json";
    std::ofstream(cut) << whole.substr(0, whole.size() * 2 / 3);
    AnnotateConfig cfg = config("trace_classic.json", "records_classic.txt", true);
    cfg.input = cut;
    std::FILE* out = std::tmpfile();
    try {
        run_annotate(cfg, out);
        ADD_FAILURE() << "a truncated input must fail";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::dataerr);
        EXPECT_NE(std::string(e.what()).find("byte " + std::to_string(whole.size() * 2 / 3)), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
    std::fflush(out);
    std::rewind(out);
    char buf[65536];
    const std::string printed(buf, std::fread(buf, 1, sizeof(buf), out));
    std::fclose(out);
    unlink(cut.c_str());
    const std::string golden = slurp(kData + "/classic.trace_py.txt");
    EXPECT_GE(std::count(printed.begin(), printed.end(), '\n'), 5);
    EXPECT_EQ(golden.substr(0, printed.size()), printed) << "complete lines, as trace.py printed them";
}

// Thread names, NQNs and SPDK strings may hold anything: JSON output escapes
// quotes, backslashes and control characters and replaces invalid UTF-8.
TEST(Annotate, JsonStringsAreEscapedAndValid)
{
    const std::string trace = "/tmp/kdelay-annotate-utf8-" + std::to_string(getpid()) + ".json";
    std::ofstream(trace, std::ios::binary)
        << R"({"tsc_rate":1000,"tpoints":[{"name":"N\"\\","id":1,"new_object":false,"args":[{"name":"s","type":2,"size":8}]}],)"
        << R"("entries":[{"lcore":0,"tpoint":1,"tsc":5,"poller":"p\u0001","args":["bad )" << "\xff\xfe"
        << R"( caf\u00e9 \"q\" \\ \n"]}]})";
    AnnotateConfig cfg = config("trace_classic.json", "", false);
    cfg.input = trace;
    cfg.json = true;
    const std::string out = annotate(cfg);
    unlink(trace.c_str());
    const auto j = nlohmann::json::parse(out);  // throws on invalid UTF-8
    EXPECT_EQ(j["tpoint"], "N\"\\");
    EXPECT_EQ(j["poller"], "p\x01");
    EXPECT_EQ(j["args"][0]["value"], "bad \xEF\xBF\xBD\xEF\xBF\xBD caf\xC3\xA9 \"q\" \\ \n");
    EXPECT_NE(out.find(R"(\u0001)"), std::string::npos) << out;
}

// The same strings in trace.py's text: a control character, a byte that is
// not UTF-8 or a line separator is escaped as kdelay's reports escape
// thread names, so that a trace cannot add a line or drive root's terminal,
// and a backslash beside one, so that the escapes read one way; plain and
// UTF-8 text is as trace.py prints it (the goldens hold a plain backslash).
TEST(Annotate, TextStringsAreEscapedOneLineAnEntry)
{
    const std::string trace = "/tmp/kdelay-annotate-text-" + std::to_string(getpid()) + ".json";
    std::ofstream(trace, std::ios::binary)
        << R"({"tsc_rate":1000,"tpoints":[{"name":"N\u001b[2J","id":1,"new_object":false,"args":[{"name":"s\n","type":2,"size":8}]}],)"
        << R"("entries":[{"lcore":0,"tpoint":1,"tsc":5,"poller":"p\u0001","args":["bad )" << "\xff"
        << R"( caf\u00e9 \\ \u2028 x"]}]})";
    AnnotateConfig cfg = config("trace_classic.json", "", false);
    cfg.input = trace;
    const std::string out = annotate(cfg);
    unlink(trace.c_str());
    // The name's 8 characters padded to 24, then the empty size column's 12.
    EXPECT_EQ(out, "  0            0.000 p\\x01 N\\x1b[2J" + std::string(16 + 1 + 12, ' ') +
                       "s\\x0a: bad \\xff caf\xC3\xA9 \\x5c \\xe2\\x80\\xa8 x\n");
}
