// The .case language of the e2e tests, and its expressions checked
// against a run's output.
#include <stdexcept>

#include "case_file.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = kdfuzz::text(data, size);
    try {
        for (const auto& c : kdtest::parse_cases(text, "fuzz.case"))
            for (const auto& e : c.expects) {
                kdtest::CaseRun run;
                run.out = R"({"type":"sample","threads":[{"name":"a","tid":1,"syscalls":[]}]})";
                run.workload_outs = {"calls a 3\n"};
                (void)kdtest::check_expectation(e.text, run);
            }
    } catch (const std::runtime_error&) {
    }
    return 0;
}
