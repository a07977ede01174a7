// --stall --profile against kd_where (tests/programs/kd_where.cpp), whose
// stalls spend known CPU time in known functions: the report's shares of
// the samples match the split the workload measured on its own CPU clock.
#include <nlohmann/json.hpp>
#include <sstream>

#include "e2e.h"

using namespace std::chrono_literals;
using nlohmann::json;

namespace kdtest {
namespace {

const std::string kWhere = KD_WHERE_BIN;

// A stall as kd_where measured it on its own clocks.
struct Measured {
    uint32_t tid = 0;
    uint64_t start_ns = 0, end_ns = 0, cpu_ns = 0;
    uint64_t a_ns = 0, b_ns = 0, kernel_ns = 0;  // CPU time in work_a, work_b, read_random
};

std::vector<Measured> measured(const std::string& out)
{
    std::vector<Measured> all;
    std::istringstream in(out);
    for (std::string word; in >> word;)
        if (word == "stall") {
            Measured m;
            in >> m.tid >> m.start_ns >> m.end_ns >> m.cpu_ns >> m.a_ns >> m.b_ns >> m.kernel_ns;
            all.push_back(m);
        }
    return all;
}

std::vector<json> stall_reports(const std::string& out)
{
    std::vector<json> all;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && line[0] == '{')
            if (json j = json::parse(line); j["type"] == "stall")
                all.push_back(std::move(j));
    return all;
}

bool has_frame(const json& stack, const std::string& function)
{
    for (const json& f : stack["frames"])
        if (f.get<std::string>().find(function) != std::string::npos)
            return true;
    return false;
}

// The samples of the stacks that pass.
template <class Pass>
uint64_t samples_where(const json& profile, Pass pass)
{
    uint64_t n = 0;
    for (const json& s : profile["stacks"])
        if (pass(s))
            n += s["count"].get<uint64_t>();
    return n;
}

bool in_kernel(const json& stack) { return has_frame(stack, "[kernel]"); }

// The frames, in order, that stack holds: each after the one before.
bool holds_in_order(const json& stack, const std::vector<std::string>& functions)
{
    size_t next = 0;
    for (const json& f : stack["frames"])
        if (next < functions.size() && f.get<std::string>().find(functions[next]) != std::string::npos)
            ++next;
    return next == functions.size();
}

}  // namespace

// A gtest: the shares of each stall's samples against the CPU time the workload measured in each function.
// TAGS kernel
TEST(ProfileE2E, EachStallsSamplesSplitAsItsCpuTimeWent)
{
    KD_REQUIRE_BPF();
    // At 499 Hz a stall of 1 s of CPU time has some 500 samples: the share
    // of a part of 60% is within 8 points but for 1 time in 3,000 (the
    // binomial's 3.6 sigma), where 99 Hz's 100 samples miss 1 time in 10.
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(run_released(run, {kWhere, "2"}, {"--stall", "500ms", "--profile", "499", "--format", "json"},
                                         60s, 20s, "\"marker\":\"start\""));
    ASSERT_EQ(run.status, 0) << run.err;
    const std::vector<Measured> plants = measured(run.workload_out);
    const std::vector<json> reports = stall_reports(run.out);
    ASSERT_EQ(plants.size(), 2u) << run.workload_out;
    ASSERT_EQ(reports.size(), plants.size()) << run.out;
    for (size_t i = 0; i < plants.size(); ++i) {
        const Measured& m = plants[i];
        const json& budget = reports[i]["thread"]["budget"];
        SCOPED_TRACE(budget.dump());
        ASSERT_TRUE(budget["profile"].is_object());
        const json& p = budget["profile"];
        EXPECT_EQ(p["hz"], 499);
        EXPECT_EQ(p["period_ns"], 1'000'000'000u / 499);
        EXPECT_EQ(p["lost"], 0);
        const uint64_t samples = p["samples"].get<uint64_t>();
        ASSERT_GT(samples, 0u);
        // Samples times the period is the CPU time of the interval: RUNNING.
        const double sampled_ns = double(samples) * double(p["period_ns"].get<uint64_t>());
        const double running_ns = double(budget["running_ns"].get<uint64_t>());
        EXPECT_NEAR(sampled_ns / running_ns, 1.0, 0.15);
        // The shares, within 8 points of the split the workload measured.
        const double cpu = double(m.a_ns + m.b_ns + m.kernel_ns);
        const auto share = [&](uint64_t n) { return 100.0 * double(n) / double(samples); };
        const uint64_t in_a = samples_where(p, [](const json& s) { return has_frame(s, "work_a") && !in_kernel(s); });
        const uint64_t in_b = samples_where(p, [](const json& s) { return has_frame(s, "work_b") && !in_kernel(s); });
        const uint64_t kernel = samples_where(p, in_kernel);
        EXPECT_NEAR(share(in_a), 100.0 * double(m.a_ns) / cpu, 8.0);
        EXPECT_NEAR(share(in_b), 100.0 * double(m.b_ns) / cpu, 8.0);
        EXPECT_NEAR(share(kernel), 100.0 * double(m.kernel_ns) / cpu, 8.0);
        // From each leaf of kd_where's own (built with frame pointers) to
        // its caller and on to the thread's start; the kernel's part under
        // the read that entered it. (A sample inside glibc, which keeps no
        // frame pointer, skips its caller: docs/report.md.)
        const json& top = p["stacks"][0];
        EXPECT_TRUE(holds_in_order(top, {"main [", "one_stall", "work_a", "spin_here"})) << top.dump();
        for (const json& s : p["stacks"]) {
            const std::string leaf = s["frames"].back();
            if (leaf.find("[kd_where]") != std::string::npos) {
                EXPECT_TRUE(holds_in_order(s, {"main [", "one_stall", "spin_here"})) << s.dump();
            }
        }
        const uint64_t random = samples_where(p, [](const json& s) {
            return holds_in_order(s, {"main [", "one_stall", "read [libc", "get_random_bytes_user"});
        });
        EXPECT_GE(share(random), 100.0 * double(m.kernel_ns) / cpu - 8.0);
    }
}

// A gtest: the text report's block, at the default rate.
// TAGS kernel
TEST(ProfileE2E, TextReportShowsWhereItRanAtNinetyNineHertzByDefault)
{
    KD_REQUIRE_BPF();
    ReleasedRun run;
    ASSERT_NO_FATAL_FAILURE(run_released(run, {kWhere, "1"}, {"--stall", "500ms"}, 60s, 20s, "# Start watching"));
    ASSERT_EQ(run.status, 0) << run.err;
    const size_t block = run.out.find("[WHERE IT RAN]");
    ASSERT_NE(block, std::string::npos) << run.out;
    const std::string rest = run.out.substr(block);
    EXPECT_NE(rest.find("SAMPLES   % RUNNING    STACK, OUTERMOST FIRST"), std::string::npos) << rest;
    // The top stack is work_a's, its frames from main down to the leaf.
    const size_t main_at = rest.find("main [kd_where]"), a_at = rest.find("work_a("),
                 leaf_at = rest.find("spin_here(");
    EXPECT_LT(main_at, a_at) << rest;
    EXPECT_LT(a_at, leaf_at) << rest;
    EXPECT_NE(rest.find(" samples at 99 Hz, one each 10.101 ms of CPU time"), std::string::npos) << rest;
    // --profile 0: no block.
    ReleasedRun off;
    ASSERT_NO_FATAL_FAILURE(
        run_released(off, {kWhere, "1"}, {"--stall", "500ms", "--profile", "0"}, 60s, 20s, "# Start watching"));
    EXPECT_NE(off.out.find("# STALL of "), std::string::npos) << off.out;
    EXPECT_EQ(off.out.find("[WHERE IT RAN]"), std::string::npos) << off.out;
}

}  // namespace kdtest
