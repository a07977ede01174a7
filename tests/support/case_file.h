// End-to-end cases as data: text files of one or more cases under
// tests/e2e/cases/, read here and run by tests/e2e/case_runner_test.cpp.
// The format is in tests/e2e/cases/README.md.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace kdtest {

// Something done after kdelay starts sampling, in file order.
struct CaseStep {
    enum class Kind { signal, wait, sleep };
    Kind kind = Kind::sleep;
    bool to_kdelay = false;  // signal: kdelay rather than a workload
    int workload = 0;        // signal: the Nth workload (from 1); 0: every one
    int signal = 0;
    std::string text;        // wait: a line of each workload's output containing it
    std::chrono::milliseconds time{0};  // sleep, or wait's limit
};

struct Expectation {
    std::string text;
    int line = 0;
};

struct E2eCase {
    std::string name;
    std::string file;
    int line = 1;
    std::vector<std::string> requires_;  // bpf, kprobes, schedstats, tracepoint:SYSTEM:EVENT
    std::vector<std::string> tags;       // what the case exercises, for tests/vm/matrix.sh
    // An ERROR one-liner: kdelay with `kdelay` alone (no workload, no
    // --format) exits with error_exit and prints error_line, and only that.
    bool is_error = false;
    int error_exit = 0;
    std::string error_line;
    // Programs of tests/programs and their arguments, started in order.
    std::vector<std::vector<std::string>> workloads;
    // Or a program of tests/programs that kdelay starts itself, after "--";
    // its output is on kdelay's stdout.
    std::vector<std::string> command;
    std::string ready = "ready";         // each workload's line before kdelay starts
    // Arguments; {pid} is the first workload's pid, {pid2} the second's...
    std::vector<std::string> kdelay;
    std::vector<CaseStep> steps;
    std::chrono::seconds timeout{30};    // for kdelay to end after the steps
    std::vector<Expectation> expects;
};

// Every case of a file, in order: a NAME line starts a case, an ERROR line
// is one. Throws std::runtime_error("FILE:LINE: why") on a malformed case.
std::vector<E2eCase> parse_cases(const std::string& text, const std::string& file);

// The one case of text; throws unless there is exactly one.
E2eCase parse_case(const std::string& text, const std::string& file);

// What one run left to check.
struct CaseRun {
    int status = -1;
    std::string out, err;  // kdelay's: JSON Lines on stdout
    std::vector<std::string> workload_outs;  // each workload's, in order
};

// text with {pid} and {pid1} replaced by pids[0], {pid2} by pids[1]...
std::string with_pids(std::string text, const std::vector<int>& pids);

// "" when the expectation holds; else why not, with the values compared.
// Throws std::runtime_error on a malformed expectation.
std::string check_expectation(const std::string& expr, const CaseRun& run);

}  // namespace kdtest
