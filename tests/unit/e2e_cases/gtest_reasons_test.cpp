// End-to-end tests are cases (tests/e2e/cases/) unless the case language
// cannot say what they check: each gtest that stays says why, in a
// "// A gtest: ..." line of the comment before it.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

TEST(EndToEndGtests, EachSaysWhyItIsNotACase)
{
    const fs::path e2e = fs::path(KDELAY_DOCS_DIR).parent_path() / "tests" / "e2e";
    const std::regex test(R"(^TEST(_F)?\((\w+), (\w+)\))");
    int tests = 0;
    for (const auto& entry : fs::directory_iterator(e2e)) {
        const std::string name = entry.path().filename().string();
        if (name.size() < 9 || name.substr(name.size() - 9) != "_test.cpp")
            continue;
        std::ifstream in(entry.path());
        std::vector<std::string> comment;  // the comment lines just before
        for (std::string line; std::getline(in, line);) {
            std::smatch m;
            if (std::regex_search(line, m, test)) {
                ++tests;
                bool says = false;
                for (const std::string& c : comment)
                    says |= c.rfind("// A gtest: ", 0) == 0 && c.size() > 14;
                EXPECT_TRUE(says) << name << ": " << m[2] << "." << m[3] << " does not say why it is not a case";
            }
            if (line.rfind("//", 0) == 0)
                comment.push_back(line);
            else
                comment.clear();
        }
    }
    EXPECT_GT(tests, 50);
}
