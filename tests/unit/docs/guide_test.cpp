// Every kdelay command in docs/guide.md must parse with today's options.
#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

#include "app/options.h"
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
        // The part after "kdelay" up to a pipe, with or without sudo.
        const auto at = line.find("kdelay ");
        if (in_console && line.rfind("$ ", 0) == 0 && at != std::string::npos &&
            (at == 2 || line.compare(2, at - 2, "sudo ") == 0 || line.find(" | kdelay ") == at - 3)) {
            std::string command = line.substr(at);
            const auto pipe = command.find(" |");
            commands.push_back(pipe == std::string::npos ? command : command.substr(0, pipe));
        }
    }
    return commands;
}

}  // namespace

TEST(GuideExamples, EveryCommandParses)
{
    const auto commands = guide_commands();
    ASSERT_GE(commands.size(), 14u);
    EXPECT_EQ(std::count_if(commands.begin(), commands.end(),
                            [](const std::string& c) { return c.rfind("kdelay annotate ", 0) == 0; }),
              2)
        << "the SPDK annotation workflow";
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
