// Where a program calls the poll family (src/stall/poll_sites.cpp), read
// from this test's own executable, whose calls below are known.
#include <gtest/gtest.h>
#include <poll.h>
#include <sstream>

#include "stall/poll_sites.h"

namespace kdelay {
namespace {

volatile int g_result = 0;

// Two calls of poll() in one function, as a compiler may make of one (a
// timeout of 0 and another): one site.
__attribute__((noinline, noclone)) void two_calls(int timeout)
{
    if (timeout == 0) {
        pollfd none{-1, 0, 0};
        g_result = g_result + poll(&none, 1, 0);
    } else {
        g_result = g_result * 3 + poll(nullptr, 0, timeout);
    }
}

// Another function's call: another site.
__attribute__((noinline, noclone)) void other_call() { g_result = g_result + poll(nullptr, 0, 0); }

uint64_t address_of(void (*f)(int)) { return reinterpret_cast<uint64_t>(f); }

TEST(ProgramText, EachCallOfThePollFamilyIsItsFunctionsSite)
{
    two_calls(0);
    other_call();
    const std::vector<PollSite> sites = program_poll_sites(getpid());
    // The run-time addresses of the two functions.
    const uint64_t two = address_of(two_calls);
    const uint64_t other = reinterpret_cast<uint64_t>(&other_call);
    size_t in_two = 0, in_other = 0;
    for (const PollSite& s : sites) {
        EXPECT_GT(s.ret, s.function);
        if (s.function == two)
            ++in_two;
        if (s.function == other)
            ++in_other;
    }
    EXPECT_EQ(in_two, 2u);
    EXPECT_EQ(in_other, 1u);
}

TEST(ProgramText, NoSitesOfWhatIsNoElfFile)
{
    EXPECT_TRUE(poll_call_sites("/proc/self/status").empty());
    EXPECT_TRUE(poll_call_sites("/nonexistent").empty());
    EXPECT_TRUE(program_poll_sites(0).empty());
}

TEST(ProgramText, CodeMappingsAreTheProgramsExecutableOnes)
{
    std::istringstream maps(
        "55d400000000-55d400001000 r--p 00000000 08:01 12 /usr/sbin/prog\n"
        "55d400001000-55d400005000 r-xp 00001000 08:01 12 /usr/sbin/prog\n"
        "55d400005000-55d400006000 rw-p 00005000 08:01 12 /usr/sbin/prog\n"
        "7f0000000000-7f0000100000 r-xp 00028000 08:01 13 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
        "7f0000200000-7f0000201000 r-xp 00000000 00:00 0 \n"
        "7ffd00000000-7ffd00001000 r-xp 00000000 00:00 0 [vdso]\n"
        "garbage line\n"
        "zz-55d400009000 r-xp 00001000 08:01 12 /usr/sbin/prog\n"
        "55d400009000-55d400008000 r-xp 00001000 08:01 12 /usr/sbin/prog\n"
        "55d40000a000-55d40000b000 r-xp 00001000 08:01 12 /usr/sbin/prog (deleted)\n");
    const std::vector<CodeMapping> code = code_mappings(maps, "/usr/sbin/prog");
    ASSERT_EQ(code.size(), 1u);
    EXPECT_EQ(code[0].lo, 0x55d400001000u);
    EXPECT_EQ(code[0].hi, 0x55d400005000u);
    EXPECT_EQ(code[0].offset, 0x1000u);
}

}  // namespace
}  // namespace kdelay
