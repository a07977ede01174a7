#include "cli/options.h"

#include <gtest/gtest.h>

#include "core/error.h"

using namespace kdelay;

namespace {

std::optional<Options> parse(std::vector<const char*> args)
{
    args.insert(args.begin(), "kdelay");
    return parse_options(static_cast<int>(args.size()), args.data());
}

Exit error_code(std::vector<const char*> args)
{
    try {
        parse(args);
    } catch (const Error& e) {
        return e.code();
    }
    return Exit::ok;
}

}  // namespace

TEST(Options, DefaultsMatchTheReference)
{
    auto o = parse({});
    ASSERT_TRUE(o);
    EXPECT_FALSE(o->pid);
    EXPECT_DOUBLE_EQ(o->sample_time, 0.5);
    EXPECT_EQ(o->sample_count, 1u);
    EXPECT_DOUBLE_EQ(o->sample_interval, 0);
    EXPECT_EQ(o->debug, 0u);
}

TEST(Options, ParsesEveryOption)
{
    auto o = parse({"-p", "42", "--sample-time", "2.5", "--sample-count", "3",
                    "--sample-interval", "1", "--ebpf"});
    ASSERT_TRUE(o);
    EXPECT_EQ(*o->pid, 42);
    EXPECT_DOUBLE_EQ(o->sample_time, 2.5);
    EXPECT_EQ(o->sample_count, 3u);
    EXPECT_DOUBLE_EQ(o->sample_interval, 1);
    EXPECT_TRUE(o->print_ebpf);
}

TEST(Options, BareDebugMeansAllBccFlags)
{
    EXPECT_EQ(parse({"-D"})->debug, 63u);
    EXPECT_EQ(parse({"--debug=4"})->debug, 4u);
}

TEST(Options, EverythingAfterDoubleDashIsTheCommand)
{
    auto o = parse({"--sample-time", "1", "--", "prog", "-p", "--sample-time", "--"});
    ASSERT_TRUE(o);
    EXPECT_EQ(o->command, (std::vector<std::string>{"prog", "-p", "--sample-time", "--"}));
    EXPECT_DOUBLE_EQ(o->sample_time, 1);
}

TEST(Options, BadInputIsAUsageError)
{
    EXPECT_EQ(error_code({"--nope"}), Exit::usage);
    EXPECT_EQ(error_code({"-p", "abc"}), Exit::usage);
    EXPECT_EQ(error_code({"-p", "-5"}), Exit::usage);
    EXPECT_EQ(error_code({"--sample-count", "0"}), Exit::usage);
    EXPECT_EQ(error_code({"--sample-time", "0"}), Exit::usage);
    EXPECT_EQ(error_code({"--sample-interval", "-1"}), Exit::usage);
    EXPECT_EQ(error_code({"stray"}), Exit::usage);
    EXPECT_EQ(error_code({"--"}), Exit::usage);
    EXPECT_EQ(error_code({"-p", "5", "--", "ls"}), Exit::usage);
}

TEST(Options, HelpReturnsNothingToRun)
{
    testing::internal::CaptureStdout();
    EXPECT_FALSE(parse({"--help"}));
    const std::string help = testing::internal::GetCapturedStdout();
    for (const char* opt : {"--pid", "--sample-time", "--sample-count", "--sample-interval",
                            "--debug", "--ebpf", "-- COMMAND"})
        EXPECT_NE(help.find(opt), std::string::npos) << opt;
}
