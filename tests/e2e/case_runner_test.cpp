// Registers every case of tests/e2e/cases/*.case as a gtest (suite
// "Case"), which gtest_discover_tests hands to ctest, and runs it: the
// workload, kdelay with --format json, the steps, then each EXPECT against
// the output; or, for an ERROR one-liner, kdelay alone, its exit status and
// its one line on stderr.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "case_file.h"
#include "e2e.h"

using namespace kdtest;

namespace {

const std::string kCasesDir = KD_CASES_DIR;
const std::string kProgramsDir = KD_PROGRAMS_DIR;

// Why this machine cannot run the case, or "".
std::string unmet(const E2eCase& c)
{
    for (const std::string& r : c.requires_) {
        if (r == "bpf" && !why_no_bpf().empty())
            return why_no_bpf();
        if (r == "kprobes" && access("/sys/kernel/tracing/kprobe_events", F_OK) != 0)
            return "this kernel has no kprobes";
        if (r.rfind("tracepoint:", 0) == 0) {
            std::string event = r.substr(11);
            event[event.find(':')] = '/';
            if (access(("/sys/kernel/tracing/events/" + event).c_str(), F_OK) != 0)
                return "this kernel has no " + r.substr(11) + " tracepoint";
        }
        if (r == "schedstats" && access("/proc/sys/kernel/sched_schedstats", W_OK) != 0)
            return "no writable /proc/sys/kernel/sched_schedstats";
        if (r.rfind("cpus:", 0) == 0 && sysconf(_SC_NPROCESSORS_ONLN) < std::stol(r.substr(5)))
            return "needs " + r.substr(5) + " CPUs";
    }
    return "";
}

class CaseTest : public ::testing::Test {
public:
    explicit CaseTest(E2eCase c) : c_(std::move(c)) {}

    void TestBody() override
    {
        if (c_.is_error)
            return run_error();
        if (const std::string why = unmet(c_); !why.empty())
            GTEST_SKIP() << why;
        std::unique_ptr<SchedStatsOn> schedstats;
        if (std::count(c_.requires_.begin(), c_.requires_.end(), "schedstats"))
            schedstats = std::make_unique<SchedStatsOn>();

        std::vector<std::unique_ptr<Process>> workloads;
        std::vector<int> pids;
        for (std::vector<std::string> argv : c_.workloads) {
            argv[0] = kProgramsDir + "/" + argv[0];
            workloads.push_back(std::make_unique<Process>(argv));
            // A hang guard: kd_reclaim's setup took over 10 s in a guest under steal.
            ASSERT_TRUE(workloads.back()->wait_for_output(c_.ready, std::chrono::seconds(60)))
                << c_.file << ": the workload never printed " << c_.ready << "\n" << workloads.back()->err();
            pids.push_back(workloads.back()->pid());
        }

        std::vector<std::string> argv = {kKdelay};
        for (const std::string& a : c_.kdelay)
            argv.push_back(with_pids(a, pids));
        argv.insert(argv.end(), {"--format", "json"});
        if (!c_.command.empty()) {
            argv.push_back("--");
            argv.push_back(kProgramsDir + "/" + c_.command[0]);
            argv.insert(argv.end(), c_.command.begin() + 1, c_.command.end());
        }
        Process kdelay(argv);
        // A case without steps may see kdelay exit before it starts (a
        // refusal that names the workload); else it must start.
        const bool started = kdelay.wait_for_output("\"marker\":\"start\"", kStartTimeout);
        ASSERT_TRUE(started || (c_.steps.empty() && kdelay.wait(std::chrono::seconds(5)) >= 0))
            << c_.file << ": kdelay never started sampling\n" << kdelay.err();

        for (const CaseStep& s : c_.steps) {
            switch (s.kind) {
            case CaseStep::Kind::signal:  // a COMMAND case signals kdelay only (parse_cases)
                if (s.to_kdelay)
                    kdelay.signal(s.signal);
                for (size_t k = 0; k < workloads.size() && !s.to_kdelay; ++k)
                    if (s.workload == 0 || s.workload == static_cast<int>(k) + 1)
                        workloads[k]->signal(s.signal);
                break;
            case CaseStep::Kind::wait:
                for (const auto& w : workloads)
                    ASSERT_TRUE(w->wait_for_output(s.text, s.time))
                        << c_.file << ": a workload never printed " << s.text << "\n" << w->out();
                break;
            case CaseStep::Kind::sleep:
                std::this_thread::sleep_for(s.time);
                break;
            }
        }
        CaseRun run;
        run.status = kdelay.wait(c_.timeout);
        run.out = kdelay.out();
        run.err = kdelay.err();
        for (const auto& w : workloads)
            run.workload_outs.push_back(w->out());
        if (workloads.empty())
            run.workload_outs.push_back(run.out);  // a COMMAND's output is on kdelay's stdout
        for (const Expectation& e : c_.expects) {
            std::string failure;
            try {
                failure = check_expectation(with_pids(e.text, pids), run);
            } catch (const std::exception& ex) {
                failure = std::string("malformed: ") + ex.what();
            }
            if (!failure.empty())
                ADD_FAILURE_AT(c_.file.c_str(), e.line) << "EXPECT " << e.text << "\n  " << failure;
        }
        if (HasFailure()) {
            std::cerr << "kdelay's stderr:\n" << run.err;
            for (const std::string& out : run.workload_outs)
                std::cerr << "\nworkload's output:\n" << out;
        }
    }

private:
    // As a user runs it: as root, where every check before the first
    // error is passed.
    void run_error()
    {
        if (geteuid() != 0)
            GTEST_SKIP() << "error cases run as root";
        std::vector<std::string> argv = {kKdelay};
        argv.insert(argv.end(), c_.kdelay.begin(), c_.kdelay.end());
        const Result r = run(argv, std::chrono::seconds(30));
        EXPECT_EQ(r.status, c_.error_exit) << c_.file << ":" << c_.line << "\n" << r.err;
        EXPECT_EQ(r.err, c_.error_line + "\n") << c_.file << ":" << c_.line;
        EXPECT_EQ(r.out, "") << c_.file << ":" << c_.line;
    }

    E2eCase c_;
};

// A case file that does not parse still shows up, as a failing test.
class BrokenCase : public ::testing::Test {
public:
    explicit BrokenCase(std::string why) : why_(std::move(why)) {}
    void TestBody() override { FAIL() << why_; }

private:
    std::string why_;
};

const bool registered = [] {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(kCasesDir, ec))
        if (e.path().extension() == ".case")
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        std::ifstream in(path);
        std::stringstream text;
        text << in.rdbuf();
        const std::string file = path.string();
        try {
            for (E2eCase& c : parse_cases(text.str(), file)) {
                const std::string name = c.name;
                const int line = c.line;
                ::testing::RegisterTest("Case", name.c_str(), nullptr, nullptr, file.c_str(), line,
                                        [c = std::move(c)]() -> ::testing::Test* { return new CaseTest(c); });
            }
        } catch (const std::exception& ex) {
            const std::string why = ex.what();
            ::testing::RegisterTest("Case", path.stem().c_str(), nullptr, nullptr, file.c_str(), 1,
                                    [why]() -> ::testing::Test* { return new BrokenCase(why); });
        }
    }
    return true;
}();

}  // namespace
