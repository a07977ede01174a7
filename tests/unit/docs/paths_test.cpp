// Every path of this tree that the README and docs/ name exists: a file or
// folder as written, or the source of a program named without its suffix
// (bench/hook_floor: bench/hook_floor.cpp). A part in capitals (TARGET,
// SUITE) or with a * is a placeholder, not a name.
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

namespace {

namespace fs = std::filesystem;

const fs::path kTree = fs::path(KDELAY_DOCS_DIR).parent_path();

bool is_placeholder(const std::string& path)
{
    if (path.find_first_of("*{}<>$") != std::string::npos)
        return true;
    std::istringstream parts(path);
    for (std::string part; std::getline(parts, part, '/');)
        if (part.size() > 2 && std::regex_match(part, std::regex("[A-Z_]+(\\.[a-z]+)*")))
            return true;
    return false;
}

bool exists_in_tree(const std::string& path)
{
    if (fs::exists(kTree / path))
        return true;
    for (const char* suffix : {".cpp", ".c", ".sh", ".py"})
        if (fs::exists(kTree / (path + suffix)))
            return true;
    return false;
}

}  // namespace

TEST(DocPaths, EveryPathTheDocsNameExists)
{
    std::vector<fs::path> docs = {kTree / "README.md"};
    for (const auto& e : fs::directory_iterator(kTree / "docs"))
        if (e.path().extension() == ".md")
            docs.push_back(e.path());
    // `tests/...` in code spans, and tree paths in links.
    const std::regex named(R"(`((?:tests|src|bench|scripts|bpf|docs|packaging|probes|cmake)/[^`\s:]*)[^`]*`)");
    size_t checked = 0;
    for (const fs::path& doc : docs) {
        std::ifstream in(doc);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (auto it = std::sregex_iterator(text.begin(), text.end(), named); it != std::sregex_iterator(); ++it) {
            std::string path = (*it)[1].str();
            while (!path.empty() && std::string(".,;").find(path.back()) != std::string::npos)
                path.pop_back();
            if (is_placeholder(path))
                continue;
            ++checked;
            EXPECT_TRUE(exists_in_tree(path)) << doc.filename().string() << " names " << path << ", which is not in the tree";
        }
    }
    EXPECT_GT(checked, 50u) << "the docs name the tree's files";
}
