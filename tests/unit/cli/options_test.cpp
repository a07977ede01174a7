#include "cli/options.h"

#include <gtest/gtest.h>
#include <regex>

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
    EXPECT_DOUBLE_EQ(o->delay.sample_time, 0.5);
    EXPECT_EQ(o->delay.sample_count, 1u);
    EXPECT_DOUBLE_EQ(o->delay.sample_interval, 0);
    EXPECT_EQ(o->debug, 0u);
}

TEST(Options, ParsesEveryOption)
{
    auto o = parse({"-p", "42", "--sample-time", "2.5", "--sample-count", "3",
                    "--sample-interval", "1", "--ebpf"});
    ASSERT_TRUE(o);
    EXPECT_EQ(*o->pid, 42);
    EXPECT_DOUBLE_EQ(o->delay.sample_time, 2.5);
    EXPECT_EQ(o->delay.sample_count, 3u);
    EXPECT_DOUBLE_EQ(o->delay.sample_interval, 1);
    EXPECT_TRUE(o->print_ebpf);
}

TEST(Options, DebugTakesAnOptionalIntegerAsUpstream)
{
    EXPECT_EQ(parse({"-D"})->debug, 63u);
    EXPECT_EQ(parse({"--debug"})->debug, 63u);
    EXPECT_EQ(parse({"-D", "5"})->debug, 5u);
    EXPECT_EQ(parse({"-D5"})->debug, 5u);
    EXPECT_EQ(parse({"--debug", "5"})->debug, 5u);
    EXPECT_EQ(parse({"--debug=4"})->debug, 4u);
    EXPECT_EQ(parse({"-D", "-p", "3"})->debug, 63u);
    EXPECT_EQ(parse({"-D", "biosnoop"})->debug, 63u);
    EXPECT_EQ(parse({"biosnoop", "-D", "2"})->debug, 2u);
    EXPECT_EQ(parse({"record", "-D"})->debug, 63u);
    EXPECT_EQ(error_code({"-D", "-1"}), Exit::usage);
    EXPECT_EQ(error_code({"-D", "x"}), Exit::usage);
}

TEST(Options, HelpShowsNoParserMarkup)
{
    testing::internal::CaptureStdout();
    parse({"--help"});
    const std::string help = testing::internal::GetCapturedStdout();
    EXPECT_EQ(help.find("{63}"), std::string::npos) << help;
    // CLI11 2.6 aligns long names in a column of their own.
    EXPECT_TRUE(std::regex_search(help, std::regex(R"(-D, *--debug \[FLAGS\])"))) << help;
    // Option texts keep the line breaks they were written with.
    EXPECT_TRUE(std::regex_search(help, std::regex(R"(ready, blocked per\n {30,}syscall, stopped)"))) << help;
    // The usage lines keep their hand-made layout whatever CLI11 reflows.
    EXPECT_NE(help.find("\n  kdelay -p PID [OPTIONS]          trace process PID\n"), std::string::npos) << help;
    EXPECT_NE(help.find("\n                                   one line per block I/O (see kdelay biosnoop --help)\n"),
              std::string::npos)
        << help;
}

TEST(Options, BareTriggerDeltaMeansZero)
{
    EXPECT_EQ(parse({"--trigger-delta"})->delay.trigger_delta, 0u);
    EXPECT_EQ(parse({"--trigger-delta", "--sample-time", "1"})->delay.trigger_delta, 0u);
    EXPECT_EQ(parse({"--trigger-delta", "9"})->delay.trigger_delta, 9u);
}

TEST(Options, UnsignedValuesRejectSignsAndFractions)
{
    for (const auto& args : std::vector<std::vector<const char*>>{
             {"-s", "-5"},
             {"--syscall-events", "-5"},
             {"--trigger-delta", "-5"},
             {"--trigger-delta", "1.5"},
             {"--stack-trace-size", "-1"},
             {"--buffer-page-count", "-1"},
             {"--sample-count", "-1"},
             {"--sample-count", "+2"},
         })
        EXPECT_EQ(error_code(args), Exit::usage) << args[0] << " " << args[1];
}

TEST(Options, SkipUpcallStatsIsAccepted)
{
    EXPECT_FALSE(parse({})->delay.skip_upcall_stats);
    EXPECT_TRUE(parse({"--skip-upcall-stats"})->delay.skip_upcall_stats);
}

TEST(Options, EverythingAfterDoubleDashIsTheCommand)
{
    auto o = parse({"--sample-time", "1", "--", "prog", "-p", "--sample-time", "--"});
    ASSERT_TRUE(o);
    EXPECT_EQ(o->command, (std::vector<std::string>{"prog", "-p", "--sample-time", "--"}));
    EXPECT_DOUBLE_EQ(o->delay.sample_time, 1);
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

TEST(Options, TriggerAndEventOptions)
{
    auto o = parse({"--start-trigger", "u:a:b", "--stop-trigger", "", "--trigger-delta", "5000",
                    "--skip-syscall-poll-events", "--stack-trace-size", "0",
                    "--buffer-page-count", "3"});
    ASSERT_TRUE(o);
    EXPECT_TRUE(o->delay.has_start_trigger);
    EXPECT_EQ(o->delay.start_trigger, "u:a:b");
    EXPECT_TRUE(o->delay.has_stop_trigger) << "an empty trigger is given, and invalid";
    EXPECT_EQ(o->delay.trigger_delta, 5000u);
    EXPECT_FALSE(o->delay.syscall_events);
    EXPECT_TRUE(o->delay.skip_syscall_poll_events);
    EXPECT_EQ(o->delay.stack_trace_size, 0u);
    EXPECT_EQ(o->delay.buffer_page_count, 3u);
}

TEST(Options, SyscallEventsTakesAnOptionalThreshold)
{
    EXPECT_EQ(*parse({"--syscall-events"})->delay.syscall_events, 0u);
    EXPECT_EQ(*parse({"-s"})->delay.syscall_events, 0u);
    EXPECT_EQ(*parse({"--syscall-events", "50000"})->delay.syscall_events, 50000u);
    EXPECT_EQ(*parse({"-s", "7", "--sample-time", "1"})->delay.syscall_events, 7u);
    EXPECT_EQ(*parse({"--syscall-events", "--sample-time", "1"})->delay.syscall_events, 0u);
    EXPECT_EQ(error_code({"--syscall-events", "abc"}), Exit::usage);
    EXPECT_EQ(error_code({"--buffer-page-count", "0"}), Exit::usage);
}
