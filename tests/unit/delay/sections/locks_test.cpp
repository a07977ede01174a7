#include <gtest/gtest.h>

#include "delay/section.h"

using namespace kdelay;

namespace {

const ThreadSection& locks()
{
    for (const RegisteredSection& s : registered_sections())
        if (std::string(s.def->on.name) == "locks")
            return *s.def;
    throw std::runtime_error("no locks section");
}

}  // namespace

// Lock kinds are named as perf lock contention names them, from the flags
// of lock:contention_begin (spin 0x1, read 0x2, write 0x4, rt 0x8, percpu
// 0x10, mutex 0x20); flags it does not know stay readable.
TEST(LocksSection, NamesTheKindsOfLockFromTheirFlags)
{
    const auto kind = locks().row_name;
    EXPECT_EQ(kind(0x1), "spinlock");
    EXPECT_EQ(kind(0x4), "rwsem:W");
    EXPECT_EQ(kind(0x2), "rwsem:R");
    EXPECT_EQ(kind(0x20), "mutex");
    EXPECT_EQ(kind(0x21), "mutex");
    EXPECT_EQ(kind(0x8), "rt-mutex");
    EXPECT_EQ(kind(0x14), "pcpu-sem:W");
    EXPECT_EQ(kind(0x40), "flags 0x40");
}
