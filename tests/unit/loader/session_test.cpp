#include "loader/session.h"

#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

#include "core/error.h"

using namespace kdelay;

TEST(BpfSession, FirstErrorLineIsClangsErrorOrTheFallback)
{
    EXPECT_EQ(first_error_line("warning: x\n/virtual/main.c:3:1: error: bad\nmore\n", "f"),
              "/virtual/main.c:3:1: error: bad");
    EXPECT_EQ(first_error_line("nothing here\n", "the fallback"), "the fallback");
    EXPECT_EQ(first_error_line("", ""), "unknown error");
}

TEST(BpfSession, ACompileErrorIsAnErrorQuotingClang)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to load eBPF";
    try {
        BpfSession session("int broken(void *ctx) { return undeclared_name; }\n");
        FAIL() << "compiled";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), Exit::software);
        EXPECT_NE(std::string(e.what()).find("failed to compile"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("undeclared_name"), std::string::npos) << e.what();
    }
}

// LLVM's BPF backend ends the process itself on some errors, a stack over
// 512 bytes among them: the process still says why in one line, and exits
// with EX_SOFTWARE, not LLVM's bare 1.
TEST(BpfSessionDeathTest, ABackendExitDuringCompileSaysWhyAndExitsSoftware)
{
    if (geteuid() != 0)
        GTEST_SKIP() << "needs root to load eBPF";
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    const std::string over_the_stack =
        "RAW_TRACEPOINT_PROBE(sys_enter)\n"
        "{\n"
        "    volatile char big[1024];\n"
        "    for (int i = 0; i < 1024; i++) big[i] = i;\n"
        "    return big[ctx->args[1] & 1023];\n"
        "}\n";
    EXPECT_EXIT(BpfSession session(over_the_stack), testing::ExitedWithCode(static_cast<int>(Exit::software)),
                "kdelay: eBPF program failed to compile: .*stack");
}
