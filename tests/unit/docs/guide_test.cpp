// Every kdelay command in docs/guide.md must parse with today's options.
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

#include "cli/options.h"
#include "core/error.h"

using namespace kdelay;

namespace {

std::vector<std::string> guide_commands()
{
    std::ifstream in(std::string(KDELAY_DOCS_DIR) + "/guide.md");
    std::vector<std::string> commands;
    std::string line;
    bool in_console = false;
    while (std::getline(in, line)) {
        if (line.rfind("```", 0) == 0) {
            in_console = line == "```console";
            continue;
        }
        if (in_console && line.rfind("$ sudo kdelay", 0) == 0)
            commands.push_back(line.substr(std::string("$ sudo ").size()));
    }
    return commands;
}

}  // namespace

TEST(GuideExamples, EveryCommandParses)
{
    const auto commands = guide_commands();
    ASSERT_GE(commands.size(), 12u);
    for (const auto& command : commands) {
        std::istringstream words(command);
        std::vector<std::string> args;
        for (std::string w; words >> w;)
            args.push_back(w);
        std::vector<const char*> argv;
        for (const auto& a : args)
            argv.push_back(a.c_str());
        try {
            testing::internal::CaptureStdout();
            parse_options(static_cast<int>(argv.size()), argv.data());
            testing::internal::GetCapturedStdout();
        } catch (const Error& e) {
            testing::internal::GetCapturedStdout();
            ADD_FAILURE() << command << ": " << e.what();
        }
    }
}
