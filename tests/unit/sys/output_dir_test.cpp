// The directory kdelay writes its files into (src/sys/output_dir.cpp),
// against what a local user can plant in it or swap in for it.
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "sys/output_dir.h"

namespace kdelay {
namespace {

// A directory of its own under /tmp, gone with what it holds at the end.
class ScratchDir {
public:
    ScratchDir()
    {
        char dir[] = "/tmp/kdelay-outdir-XXXXXX";
        if (mkdtemp(dir))
            path_ = dir;
    }
    ~ScratchDir() { std::system(("rm -rf '" + path_ + "' '" + path_ + ".moved' '" + path_ + ".elsewhere'").c_str()); }
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

std::string contents(const std::string& path)
{
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::set<std::string> names_in(const std::string& dir)
{
    std::set<std::string> names;
    if (DIR* d = opendir(dir.c_str())) {
        while (const dirent* e = readdir(d))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
                names.insert(e->d_name);
        closedir(d);
    }
    return names;
}

TEST(OutputDir, AFileIsReplacedWholeWithItsModeAndNothingLeftBeside)
{
    const ScratchDir d;
    ASSERT_FALSE(d.path().empty());
    OutputDir out(d.path(), "--metrics");
    const mode_t old = umask(0077);
    out.replace("kdelay.prom", "first\n");
    out.replace("kdelay.prom", "second\n");
    umask(old);
    EXPECT_EQ(contents(d / "kdelay.prom"), "second\n");
    struct stat st {};
    ASSERT_EQ(stat((d / "kdelay.prom").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u) << "node_exporter, not root, reads it";
    EXPECT_EQ(names_in(d.path()), std::set<std::string>{"kdelay.prom"});
}

// On the main before it, the temporary file had a fixed name: a FIFO there
// held kdelay in open() past SIGTERM, and a planted file was published
// with the planter's appended lines.
TEST(OutputDir, WhatIsPlantedAtAnyNameBesideIsNeverOpened)
{
    const ScratchDir d;
    ASSERT_EQ(mkfifo((d / ".kdelay.prom.tmp").c_str(), 0666), 0);
    const int planted = open((d / ".kdelay.prom.new").c_str(), O_WRONLY | O_CREAT, 0666);
    ASSERT_GE(planted, 0);
    close(planted);
    OutputDir out(d.path(), "--metrics");
    out.replace("kdelay.prom", "kdelay_stalls_total 1\n");  // would block in open() on a FIFO
    EXPECT_EQ(contents(d / "kdelay.prom"), "kdelay_stalls_total 1\n");
    EXPECT_EQ(contents(d / ".kdelay.prom.new"), "");
    // A link at the file's own name is replaced, not written through.
    ASSERT_EQ(unlink((d / "kdelay.prom").c_str()), 0);
    ASSERT_EQ(symlink((d / "target").c_str(), (d / "kdelay.prom").c_str()), 0);
    out.replace("kdelay.prom", "x\n");
    EXPECT_NE(access((d / "target").c_str(), F_OK), 0);
    struct stat st {};
    ASSERT_EQ(lstat((d / "kdelay.prom").c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST(OutputDir, ADirectoryAnyUserCanWriteToIsRefusedWithoutTheStickyBit)
{
    const ScratchDir d;
    ASSERT_EQ(chmod(d.path().c_str(), 0777), 0);
    try {
        OutputDir out(d.path(), "--timeline");
        FAIL() << "accepted a directory any user can write to";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::cantcreat);
        EXPECT_NE(std::string(e.what()).find("--timeline: any user can write to " + d.path()), std::string::npos)
            << e.what();
    }
    ASSERT_EQ(chmod(d.path().c_str(), 01777), 0);  // as /tmp
    EXPECT_NO_THROW(OutputDir(d.path(), "--timeline"));
    EXPECT_THROW(OutputDir(d / "missing", "--timeline"), Error);
    // A link as the directory's own name is not followed.
    ASSERT_EQ(symlink(d.path().c_str(), (d / "link").c_str()), 0);
    EXPECT_THROW(OutputDir(d / "link", "--timeline"), Error);
}

// On the main before it, the directory was reopened by its path at each
// stall: a link swapped in afterwards sent root's traces elsewhere.
TEST(OutputDir, ALinkSwappedInForTheDirectoryAfterItOpenedChangesNothing)
{
    const ScratchDir d;
    ASSERT_EQ(mkdir((d.path() + ".elsewhere").c_str(), 0755), 0);
    OutputDir out(d.path(), "--timeline");
    ASSERT_EQ(rename(d.path().c_str(), (d.path() + ".moved").c_str()), 0);
    ASSERT_EQ(symlink((d.path() + ".elsewhere").c_str(), d.path().c_str()), 0);
    out.create("t.pftrace", "abc");
    EXPECT_EQ(contents(d.path() + ".moved/t.pftrace"), "abc");
    EXPECT_TRUE(names_in(d.path() + ".elsewhere").empty());
    unlink(d.path().c_str());
}

TEST(OutputDir, ANewFileTakesTheNextFreeNameAndNeverWritesThroughALink)
{
    const ScratchDir d;
    ASSERT_EQ(symlink("/nonexistent-target", (d / "t.pftrace").c_str()), 0);
    OutputDir out(d.path(), "--timeline");
    EXPECT_EQ(out.create("t.pftrace", "abc"), d / "t-1.pftrace");
    EXPECT_EQ(contents(d / "t-1.pftrace"), "abc");
    EXPECT_EQ(out.create("t.pftrace", "def"), d / "t-2.pftrace");
    for (int n = 3; n < 100; ++n)
        out.create("t.pftrace", "");
    try {
        out.create("t.pftrace", "x");
        FAIL() << "a 101st name";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("names up to -99 are taken"), std::string::npos) << e.what();
    }
}

TEST(OutputDir, APathSplitsIntoItsDirectoryAndName)
{
    EXPECT_EQ(split_path("kdelay.prom"), std::make_pair(std::string("."), std::string("kdelay.prom")));
    EXPECT_EQ(split_path("/var/lib/x.prom"), std::make_pair(std::string("/var/lib"), std::string("x.prom")));
    EXPECT_EQ(split_path("/x.prom"), std::make_pair(std::string("/"), std::string("x.prom")));
}

}  // namespace
}  // namespace kdelay
