// Every mode's command line: options, their numbers, durations, lists.
#include "app/options.h"
#include "core/error.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::vector<std::string> args = kdfuzz::words(data, size);
    args.insert(args.begin(), "kdelay");
    std::vector<const char*> argv;
    for (const auto& a : args)
        argv.push_back(a.c_str());
    argv.push_back(nullptr);
    try {
        kdelay::parse_options(static_cast<int>(args.size()), argv.data());
    } catch (const kdelay::Error&) {
    }
    return 0;
}
