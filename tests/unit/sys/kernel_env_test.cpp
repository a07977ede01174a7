#include "sys/kernel_env.h"

#include <chrono>
#include <cstdlib>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "loader/embedded.h"
#include "core/error.h"

namespace fs = std::filesystem;
using kdelay::Error;
using kdelay::find_header_tree;
using kdelay::HeaderTree;
using kdelay::merge_header_tree;

namespace {

// A scratch /lib/modules and /usr/src laid out as Debian's headers packages do.
class HeaderTrees : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/kd-headers-test-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        root_ = tmpl;
        modules_ = root_ / "modules";
        fs::create_directories(modules_);
    }
    void TearDown() override { fs::remove_all(root_); }

    void touch(const fs::path& file)
    {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << file.filename().string() << "\n";
    }

    // A split tree (build + source) for release, linked from modules_.
    void install_split(const std::string& release)
    {
        const fs::path build = root_ / "src" / (release + "-amd64");
        const fs::path common = root_ / "src" / (release + "-common");
        touch(build / "include/generated/autoconf.h");
        touch(build / "include/config/auto.conf");
        touch(build / "arch/x86/include/generated/asm/unistd_64.h");
        touch(build / "Makefile");
        touch(common / "include/linux/kconfig.h");
        touch(common / "arch/x86/include/asm/page.h");
        touch(common / "Makefile");
        fs::create_directories(modules_ / release);
        fs::create_directory_symlink(build, modules_ / release / "build");
        fs::create_directory_symlink(common, modules_ / release / "source");
    }

    fs::path root_, modules_;
};

}  // namespace

TEST_F(HeaderTrees, TheRunningReleaseTreeComesFirst)
{
    install_split("6.1.0-9");
    install_split("6.12.5-1");
    const HeaderTree tree = find_header_tree(modules_, "6.1.0-9");
    EXPECT_EQ(tree.release, "6.1.0-9");
    EXPECT_EQ(tree.build, (modules_ / "6.1.0-9/build").string());
    EXPECT_EQ(tree.source, (modules_ / "6.1.0-9/source").string());
}

TEST_F(HeaderTrees, WithoutOneTheNewestReleaseByVersionOrder)
{
    install_split("6.9.0-1");
    install_split("6.12.5-1");  // newer than 6.9 though it sorts first as text
    fs::create_directories(modules_ / "7.0.0-1");  // modules only, no headers
    EXPECT_EQ(find_header_tree(modules_, "6.18.44-custom").release, "6.12.5-1");
}

TEST_F(HeaderTrees, AWholeTreeHasNoSource)
{
    touch(root_ / "whole/include/linux/kconfig.h");
    fs::create_directories(modules_ / "5.15.0-1");
    fs::create_directory_symlink(root_ / "whole", modules_ / "5.15.0-1/build");
    const HeaderTree tree = find_header_tree(modules_, "6.18");
    EXPECT_EQ(tree.release, "5.15.0-1");
    EXPECT_EQ(tree.source, "");
}

TEST_F(HeaderTrees, NoTreeAtAllIs72NamingThePackage)
{
    fs::create_directories(modules_ / "6.18.44/kernel");
    try {
        find_header_tree(modules_, "6.18.44");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(static_cast<int>(e.code()), 72);
        EXPECT_NE(std::string(e.what()).find("no kernel header tree under " + modules_.string()),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("Install linux-headers-"), std::string::npos) << e.what();
    }
}

TEST_F(HeaderTrees, ASplitTreeMergesAsAnInTreeBuildSeesIt)
{
    install_split("6.1.0-9");
    const fs::path merged = root_ / "merged";
    merge_header_tree(find_header_tree(modules_, "x"), merged);
    // BCC's include paths, relative to the tree, as for an in-tree build.
    for (const char* file : {"include/linux/kconfig.h", "include/generated/autoconf.h",
                             "include/config/auto.conf", "arch/x86/include/asm/page.h",
                             "arch/x86/include/generated/asm/unistd_64.h"})
        EXPECT_TRUE(fs::is_regular_file(merged / file)) << file;
    // A clash of files: build's wins, as the objtree's would.
    EXPECT_EQ(fs::canonical(merged / "Makefile"), fs::canonical(modules_ / "6.1.0-9/build/Makefile"));
    // Removing the merge leaves the installed tree whole.
    fs::remove_all(merged);
    EXPECT_TRUE(fs::is_regular_file(modules_ / "6.1.0-9/source/include/linux/kconfig.h"));
}

// kdelay's own tree (x86-64) holds every header BCC's helpers, its bpf.h and
// its USDT readers include, and the file BCC checks to accept a tree.
TEST_F(HeaderTrees, TheOwnTreeHoldsEveryHeaderBccIncludes)
{
    const fs::path own = root_ / "own";
    kdelay::write_header_tree(kdelay::embedded_folder("bcc_tree"), own.string());
    for (const char* file : {"include/linux/kconfig.h", "include/linux/types.h", "include/linux/bpf_common.h",
                             "include/linux/version.h", "include/linux/log2.h", "include/uapi/linux/bpf.h",
                             "include/uapi/linux/if_packet.h", "include/uapi/linux/ptrace.h",
                             "arch/x86/include/asm/page.h"})
        EXPECT_TRUE(fs::is_regular_file(own / file)) << file;
    std::ifstream kconfig(own / "include/linux/kconfig.h");
    const std::string text((std::istreambuf_iterator<char>(kconfig)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("#define CONFIG_BPF_SYSCALL 1"), std::string::npos) << "BCC's helpers refuse to build without it";
}

// A killed kdelay leaves its private tree behind; the next one removes it,
// and leaves alone a tree another kdelay compiles against (it holds the
// lock), one just made (with or without its lock file, not yet locked: a
// maker between its create and its flock), a link, and anything else.
TEST_F(HeaderTrees, AbandonedPrivateTreesAreSweptAndTreesInUseAreNot)
{
    const auto tree = [&](const std::string& name, bool lock_file) {
        const fs::path dir = root_ / ("kdelay-headers-" + name);
        touch(dir / "tree/include/linux/types.h");
        if (lock_file)
            touch(dir / "lock");
        return dir;
    };
    const auto age = [](const fs::path& dir) {
        fs::last_write_time(dir, fs::file_time_type::clock::now() - std::chrono::hours(1));
    };
    const fs::path killed = tree("killed", true);
    age(killed);
    const fs::path in_use = tree("in_use", true);
    age(in_use);
    const fs::path just_made = tree("just_made", false);
    const fs::path not_yet_locked = tree("not_yet_locked", true);
    const fs::path old_unlocked = tree("old", false);
    age(old_unlocked);
    touch(root_ / "elsewhere/lock");
    const fs::path link = root_ / "kdelay-headers-link";
    fs::create_directory_symlink(root_ / "elsewhere", link);
    touch(root_ / "other/lock");

    const int held = open((in_use / "lock").c_str(), O_RDONLY);
    ASSERT_GE(held, 0);
    ASSERT_EQ(flock(held, LOCK_EX), 0);
    kdelay::sweep_abandoned_header_trees(root_.string());
    close(held);

    EXPECT_FALSE(fs::exists(killed));
    EXPECT_FALSE(fs::exists(old_unlocked));
    EXPECT_TRUE(fs::exists(in_use / "tree/include/linux/types.h"));
    EXPECT_TRUE(fs::exists(just_made / "tree/include/linux/types.h"));
    EXPECT_TRUE(fs::exists(not_yet_locked / "tree/include/linux/types.h"));
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_TRUE(fs::exists(root_ / "elsewhere/lock"));
    EXPECT_TRUE(fs::exists(root_ / "other/lock"));
}

// A tree's folders and files are made through the directory's descriptor:
// a link planted inside (by whoever could write there) is not followed,
// and the write fails instead of landing where the link points.
TEST_F(HeaderTrees, WritingATreeFollowsNoLinkInsideIt)
{
    const fs::path victim = root_ / "victim", tree = root_ / "tree";
    fs::create_directories(victim);
    fs::create_directories(tree);
    fs::create_directory_symlink(victim, tree / "include");
    EXPECT_THROW(kdelay::write_header_tree({{"include/linux/types.h", "x"}}, tree.string()), fs::filesystem_error);
    fs::create_symlink(victim / "file", tree / "Makefile");
    EXPECT_THROW(kdelay::write_header_tree({{"Makefile", "x"}}, tree.string()), fs::filesystem_error);
    EXPECT_TRUE(fs::is_empty(victim));
    fs::create_directory_symlink(victim, root_ / "linked");
    EXPECT_THROW(kdelay::write_header_tree({{"a.h", "x"}}, (root_ / "linked").string()), fs::filesystem_error)
        << "the tree's own directory";
    EXPECT_THROW(kdelay::write_header_tree({{"../escape.h", "x"}}, tree.string()), fs::filesystem_error);
    EXPECT_TRUE(fs::is_empty(victim));
}
