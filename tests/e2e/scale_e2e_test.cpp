// A big target: thousands of threads, with histograms, over several samples.
// The reset between samples must leave each sample complete and on its own.
// (How long the reset takes is measured in bench/reset.sh, not here.)
#include <nlohmann/json.hpp>
#include <sstream>

#include "e2e.h"

using namespace kdtest;
using namespace std::chrono_literals;
using nlohmann::json;

// A gtest: it checks every one of 3,000 threads in each sample.
TEST(ScaleE2E, ThreeThousandThreadsWithHistogramsOverThreeSamples)
{
    KD_REQUIRE_BPF();
    constexpr int kThreads = 3000;
    Process target({KD_SLEEPERS_BIN, std::to_string(kThreads), "200"});
    ASSERT_TRUE(target.wait_for_output("ready", 20s));
    Process kdelay({kKdelay, "-p", std::to_string(target.pid()), "--histogram", "--sample-count", "3",
                    "--sample-time", "0.5", "--format", "json"});
    // Generous: only guards against a hang (the old reset took minutes here).
    ASSERT_EQ(kdelay.wait(90s), 0) << kdelay.err();

    std::istringstream lines(kdelay.out());
    std::string line;
    int samples = 0;
    while (std::getline(lines, line)) {
        const json j = json::parse(line);
        EXPECT_NE(j["type"], "warning") << line;  // e.g. a full map
        if (j["type"] != "sample")
            continue;
        ++samples;
        int sleepers = 0;
        for (const auto& t : j["threads"]) {
            if (t["name"] != "kd-sleeper")
                continue;
            ++sleepers;
            uint64_t getpid = 0, hist = 0;
            for (const auto& s : t["syscalls"])
                if (s["name"] == "getpid")
                    getpid = s["count"];
            for (const auto& h : t["histograms"])
                if (h["kind"] == "syscall" && h["name"] == "getpid")
                    hist = h["count"];
            // 0.5 s at one call per 200 ms: 2 or 3, never what earlier
            // samples added (that would be 5 and more by the third).
            EXPECT_GE(getpid, 1u) << t.dump();
            EXPECT_LE(getpid, 4u) << "sample " << samples << ": " << t.dump();
            EXPECT_EQ(hist, getpid) << t.dump();
        }
        EXPECT_EQ(sleepers, kThreads) << "sample " << samples;
    }
    EXPECT_EQ(samples, 3);
}
