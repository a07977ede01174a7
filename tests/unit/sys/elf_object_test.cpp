// What a uprobe object may be, checked without ever blocking on it.
#include "sys/elf_object.h"

#include <chrono>
#include <cstdio>
#include <elf.h>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

using namespace kdelay;

namespace {

// The one line check_elf_object() gives for path, or "" when it accepts it.
// Fails the test if the check does not return within 5 s (a blocking open).
std::string verdict(const std::string& path)
{
    auto f = std::async(std::launch::async, [path]() -> std::pair<int, std::string> {
        try {
            check_elf_object(path, "uprobe object");
            return {0, ""};
        } catch (const Error& e) {
            return {static_cast<int>(e.code()), e.what()};
        }
    });
    if (f.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
        ADD_FAILURE() << "check_elf_object blocked on " << path;
        std::quick_exit(1);  // the blocked thread cannot be joined
    }
    const auto [code, line] = f.get();
    if (code) {
        EXPECT_EQ(code, static_cast<int>(Exit::config)) << line;
    }
    return line;
}

class ElfObject : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/kd_elf_XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
    std::string file(const std::string& name, const std::string& bytes)
    {
        const std::string p = dir_ + "/" + name;
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }
    // An ELF header of the given type and nothing else.
    std::string elf(const std::string& name, uint16_t type)
    {
        Elf64_Ehdr eh{};
        memcpy(eh.e_ident, ELFMAG, SELFMAG);
        eh.e_ident[EI_CLASS] = ELFCLASS64;
        eh.e_type = type;
        return file(name, std::string(reinterpret_cast<const char*>(&eh), sizeof(eh)));
    }
    std::string dir_;
};

TEST_F(ElfObject, AFifoIsRefusedWithoutOpeningIt)
{
    const std::string fifo = dir_ + "/fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_EQ(verdict(fifo), "uprobe object " + fifo + " is a FIFO, not an ELF object");
}

TEST_F(ElfObject, OtherFileKindsSayWhatTheyAre)
{
    EXPECT_EQ(verdict(dir_), "uprobe object " + dir_ + " is a directory, not an ELF object");
    EXPECT_EQ(verdict("/dev/null"), "uprobe object /dev/null is a device, not an ELF object");
    EXPECT_EQ(verdict(dir_ + "/none"), "uprobe object " + dir_ + "/none does not exist");
}

TEST_F(ElfObject, FilesThatAreNotExecutableElf)
{
    const auto text = file("text", "#!/bin/sh\necho hi\n");
    EXPECT_EQ(verdict(text), "uprobe object " + text + " is not an ELF object");
    const auto empty = file("empty", "");
    EXPECT_EQ(verdict(empty), "uprobe object " + empty + " is not an ELF object");
    const auto core = elf("core", ET_CORE);
    EXPECT_EQ(verdict(core),
              "uprobe object " + core + " is a core file, not an executable or shared library");
    const auto rel = elf("x.o", ET_REL);
    EXPECT_EQ(verdict(rel), "uprobe object " + rel +
                                " is a relocatable object (.o), not an executable or shared library");
}

TEST_F(ElfObject, ExecutablesAndLibrariesPass)
{
    EXPECT_EQ(verdict("/proc/self/exe"), "");
    EXPECT_EQ(verdict(elf("exec", ET_EXEC)), "");
    EXPECT_EQ(verdict(elf("dyn", ET_DYN)), "");
}

TEST_F(ElfObject, KcoreIsNamedForWhatItIs)
{
    if (access("/proc/kcore", F_OK) != 0)
        GTEST_SKIP() << "this kernel has no /proc/kcore";
    if (geteuid() != 0)
        GTEST_SKIP() << "reading /proc/kcore needs root";
    EXPECT_EQ(verdict("/proc/kcore"),
              "uprobe object /proc/kcore is a core file, not an executable or shared library");
}

}  // namespace
