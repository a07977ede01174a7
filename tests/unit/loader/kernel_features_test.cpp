#include "loader/kernel_features.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

// The probe loads a real program: on this kernel it must say what the
// kernel's version says (BPF atomics came in 5.12).
TEST(KernelFeatures, CompareAndSwapIsFoundWhereTheKernelHasIt)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "loading a BPF program needs root";
    struct utsname u {};
    uname(&u);
    int major = 0, minor = 0;
    ASSERT_EQ(std::sscanf(u.release, "%d.%d", &major, &minor), 2) << u.release;
    const bool expected = major > 5 || (major == 5 && minor >= 12);
    EXPECT_EQ(kdelay::bpf_has_compare_and_swap(), expected) << u.release;
}
