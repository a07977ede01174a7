#include "sys/syscall_names.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

using namespace kdelay;

TEST(SyscallNames, NamesComeFromLibseccomp)
{
    EXPECT_EQ(syscall_name(SYS_getppid), "getppid");
    EXPECT_EQ(syscall_name(SYS_futex), "futex");
    EXPECT_EQ(syscall_name(SYS_nanosleep), "nanosleep");
    EXPECT_EQ(syscall_name(99999), "syscall_99999");
}

TEST(SyscallNames, NumbersRoundTrip)
{
    EXPECT_EQ(syscall_number("getppid"), static_cast<uint32_t>(SYS_getppid));
    EXPECT_FALSE(syscall_number("no_such_syscall"));
}
