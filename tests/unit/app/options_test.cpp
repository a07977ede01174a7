#include "app/options.h"

#include <gtest/gtest.h>
#include <map>
#include <optional>
#include <regex>

#include "core/error.h"
#include "delay/config.h"

using namespace kdelay;

namespace {

std::optional<Options> parse(std::vector<const char*> args)
{
    args.insert(args.begin(), "kdelay");
    return parse_options(static_cast<int>(args.size()), args.data());
}

// The error parse_options throws for args, if any.
std::optional<Error> parse_error(std::vector<const char*> args)
{
    try {
        parse(args);
    } catch (const Error& e) {
        return e;
    }
    return std::nullopt;
}

Exit error_code(std::vector<const char*> args)
{
    const auto e = parse_error(std::move(args));
    return e ? e->code() : Exit::ok;
}

// The usage error's message, or "" when args parse.
std::string error_text(std::vector<const char*> args)
{
    const auto e = parse_error(std::move(args));
    if (!e)
        return "";
    EXPECT_EQ(e->code(), Exit::usage) << e->what();
    return e->what();
}

}  // namespace

TEST(Options, EveryNumericOptionRefusesWhatIsNoNumberInItsRange)
{
    // The option as typed (-p takes "-1" as its value), then the name the
    // message gives it.
    const std::vector<std::vector<const char*>> options = {
        {"--sample-time", "--sample-time"},        {"--sample-interval", "--sample-interval"},
        {"--sample-count", "--sample-count"},      {"--stack-trace-size", "--stack-trace-size"},
        {"--buffer-page-count", "--buffer-page-count"}, {"--trigger-delta", "--trigger-delta"},
        {"--syscall-events", "--syscall-events"},  {"-p", "--pid"},
        {"--debug", "--debug"},                    {"biosnoop --duration", "--duration"},
        {"biosnoop -p", "--pid"},                  {"record -p", "--pid"},
    };
    const std::vector<const char*> values = {"nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e999", "-1",
                                             "+1", "0x10", "1e2", "1.5e3", "99999999999999999999999",
                                             "1.2.3", ".", "", " 1", "1 ", "12x", "-0"};
    for (const auto& option : options) {
        for (const char* value : values) {
            std::vector<const char*> args;
            std::string typed = option[0];
            if (typed.compare(0, 9, "biosnoop ") == 0 || typed.compare(0, 7, "record ") == 0) {
                args.push_back(typed.front() == 'b' ? "biosnoop" : "record");
                typed = typed.substr(typed.find(' ') + 1);
            }
            // "=" hands "-1" and "" to an option whose value is optional.
            const std::string joined = typed + "=" + value;
            args.push_back(typed.size() == 2 ? typed.c_str() : joined.c_str());
            if (typed.size() == 2)
                args.push_back(value);
            const std::string text = error_text(args);
            const std::string what = std::string(option[0]) + " " + value;
            // "--NAME=" with nothing after it has no value to quote.
            if (*value == '\0' && typed.size() > 2) {
                EXPECT_EQ(text.rfind(std::string(option[1]) + ": no value given; give ", 0), 0u) << what << ": " << text;
                continue;
            }
            EXPECT_EQ(text.rfind(std::string(option[1]) + ": '" + value + "' is ", 0), 0u) << what << ": " << text;
            EXPECT_NE(text.find(" from "), std::string::npos) << what << ": " << text;
        }
    }
}

TEST(Options, NumericErrorsSayWhatIsAllowed)
{
    EXPECT_EQ(error_text({"--sample-time", "nan"}),
              "--sample-time: 'nan' is not a number of seconds; give one from 0.001 to 86400, such as 0.5 "
              "(see kdelay --help)");
    EXPECT_EQ(error_text({"--sample-interval", "86400.5"}),
              "--sample-interval: '86400.5' is out of range; give seconds from 0 to 86400 (see kdelay --help)");
    EXPECT_EQ(error_text({"--sample-count", "0"}),
              "--sample-count: '0' is out of range; give a whole number from 1 to 1000000 (see kdelay --help)");
    EXPECT_EQ(error_text({"-p", "0x10"}),
              "--pid: '0x10' is not a whole number from 1 to 4194304 (see kdelay --help)");
    EXPECT_EQ(error_text({"-D", "4294967296"}),
              "--debug: '4294967296' is out of range; give a whole number from 0 to 4294967295 (see kdelay --help)");
    // Decimals as argparse's float takes them, but no exponent.
    EXPECT_DOUBLE_EQ(parse({"--sample-time", ".25"})->delay.sample_time, 0.25);
    EXPECT_DOUBLE_EQ(parse({"--sample-time", "3."})->delay.sample_time, 3);
    EXPECT_DOUBLE_EQ(parse({"--sample-interval", "0"})->delay.sample_interval, 0);
    EXPECT_EQ(parse({"--sample-count", "007"})->delay.sample_count, 7u);
}

TEST(Options, ParserErrorsAreKdelaysWords)
{
    EXPECT_EQ(error_text({"--format", "text", "--format", "json"}),
              "--format: given 2 times ('text', 'json'); give it once (see kdelay --help)");
    EXPECT_EQ(error_text({"biosnoop", "--duration", "1", "--duration", "1"}),
              "--duration: given 2 times ('1', '1'); give it once (see kdelay --help)");
    EXPECT_EQ(error_text({"--format"}), "--format: no value given; give text|json|journal (see kdelay --help)");
    EXPECT_EQ(error_text({"-p", "1", "--sample-time"}),
              "--sample-time: no value given; give SECONDS (see kdelay --help)");
    EXPECT_EQ(error_text({"record", "-p"}), "--pid: no value given; give PID (see kdelay --help)");
    EXPECT_EQ(error_text({"-p"}), "--pid: no value given; give PID[,PID...] (see kdelay --help)");
    EXPECT_EQ(error_text({"--format", "xml"}),
              "--format: 'xml' is not an output format; give text, json or journal (see kdelay --help)");
    EXPECT_EQ(error_text({"--bogus"}), "unknown option '--bogus' (see kdelay --help)");
    EXPECT_EQ(error_text({"biosnoop", "--bogus"}), "unknown option '--bogus' (see kdelay --help)");
    EXPECT_EQ(error_text({"-p", "3", "stray"}),
              "unexpected argument 'stray'; a command to run goes after '--' (see kdelay --help)");
    EXPECT_EQ(parse({"--format", "json"})->common.format, CommonOptions::Format::json);
    EXPECT_EQ(parse({"biosnoop", "--format", "json"})->common.format, CommonOptions::Format::json);
}

TEST(Options, PidTakesAListEachProcessOnce)
{
    EXPECT_EQ(parse({"-p", "7,9"})->common.pids, (std::vector<pid_t>{7, 9}));
    EXPECT_EQ(parse({"-p", "9", "-p", "7,9"})->common.pids, (std::vector<pid_t>{9, 7}));
    EXPECT_EQ(parse({"--pid=3,4"})->common.pids, (std::vector<pid_t>{3, 4}));
    EXPECT_EQ(parse({"biosnoop", "-p", "5"})->common.pids, std::vector<pid_t>{5});
    EXPECT_THROW(parse({"-p", "7,x"}), Error);
    EXPECT_THROW(parse({"-p", "7,0"}), Error);
}

TEST(Options, DefaultsMatchTheReference)
{
    auto o = parse({});
    ASSERT_TRUE(o);
    EXPECT_TRUE(o->common.pids.empty());
    EXPECT_DOUBLE_EQ(o->delay.sample_time, 0.5);
    EXPECT_EQ(o->delay.sample_count, 1u);
    EXPECT_DOUBLE_EQ(o->delay.sample_interval, 0);
    EXPECT_EQ(o->common.debug, 0u);
}

TEST(Options, ParsesEveryOption)
{
    auto o = parse({"-p", "42", "--sample-time", "2.5", "--sample-count", "3",
                    "--sample-interval", "1", "--ebpf"});
    ASSERT_TRUE(o);
    EXPECT_EQ(o->common.pids, std::vector<pid_t>{42});
    EXPECT_DOUBLE_EQ(o->delay.sample_time, 2.5);
    EXPECT_EQ(o->delay.sample_count, 3u);
    EXPECT_DOUBLE_EQ(o->delay.sample_interval, 1);
    EXPECT_TRUE(o->common.print_ebpf);
}

TEST(Options, DebugTakesAnOptionalIntegerAsUpstream)
{
    EXPECT_EQ(parse({"-D"})->common.debug, 63u);
    EXPECT_EQ(parse({"--debug"})->common.debug, 63u);
    EXPECT_EQ(parse({"-D", "5"})->common.debug, 5u);
    EXPECT_EQ(parse({"-D5"})->common.debug, 5u);
    EXPECT_EQ(parse({"--debug", "5"})->common.debug, 5u);
    EXPECT_EQ(parse({"--debug=4"})->common.debug, 4u);
    EXPECT_EQ(parse({"-D", "-p", "3"})->common.debug, 63u);
    EXPECT_EQ(parse({"-D", "biosnoop"})->common.debug, 63u);
    EXPECT_EQ(parse({"biosnoop", "-D", "2"})->common.debug, 2u);
    EXPECT_EQ(parse({"record", "-D"})->common.debug, 63u);
    EXPECT_EQ(error_code({"-D", "-1"}), Exit::usage);
    EXPECT_EQ(error_code({"-D", "x"}), Exit::usage);
}

TEST(Options, HelpShowsNoParserMarkup)
{
    testing::internal::CaptureStdout();
    parse({"--help"});
    const std::string help = testing::internal::GetCapturedStdout();
    EXPECT_EQ(help.find("{63}"), std::string::npos) << help;
    // Short and long names side by side, whatever the CLI11 version.
    EXPECT_TRUE(std::regex_search(help, std::regex(R"(-D, *--debug \[FLAGS\])"))) << help;
    // Option texts keep the line breaks they were written with (CLI11 2.6
    // ends each word with a space).
    EXPECT_TRUE(std::regex_search(help, std::regex(R"(\(stolen by the host\), ?\n {30,}ready \(queued)"))) << help;
    // The usage lines keep their hand-made layout whatever CLI11 reflows.
    EXPECT_NE(help.find("\n  kdelay -p PID[,PID...] [OPTIONS] trace these processes (up to 8)\n"), std::string::npos)
        << help;
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
    EXPECT_TRUE(parse({})->delay.features.upcall_stats);
    EXPECT_FALSE(parse({"--skip-upcall-stats"})->delay.features.upcall_stats);
}

TEST(Options, EverythingAfterDoubleDashIsTheCommand)
{
    auto o = parse({"--sample-time", "1", "--", "prog", "-p", "--sample-time", "--"});
    ASSERT_TRUE(o);
    EXPECT_EQ(o->common.command, (std::vector<std::string>{"prog", "-p", "--sample-time", "--"}));
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
    auto o = parse({"--start-trigger", "u:a:b", "--stop-trigger", "ur:c:free", "--trigger-delta", "5000",
                    "--skip-syscall-poll-events", "--stack-trace-size", "0",
                    "--buffer-page-count", "3"});
    ASSERT_TRUE(o);
    ASSERT_TRUE(o->delay.start_trigger);
    EXPECT_EQ(o->delay.start_trigger->kind, Trigger::Kind::usdt);
    EXPECT_EQ(o->delay.start_trigger->probe, "b");
    ASSERT_TRUE(o->delay.stop_trigger);
    EXPECT_EQ(o->delay.stop_trigger->kind, Trigger::Kind::uretprobe);
    EXPECT_EQ(o->delay.trigger_delta, 5000u);
    EXPECT_FALSE(o->delay.features.syscall_events);
    EXPECT_TRUE(o->delay.features.skip_syscall_poll_events);
    EXPECT_EQ(o->delay.features.stack_trace_size, 0u);
    EXPECT_EQ(o->delay.features.buffer_page_count, 4u) << "rounded up to a power of two";
    // An empty trigger is given, and invalid.
    EXPECT_EQ(error_code({"--stop-trigger", ""}), Exit::config);
    EXPECT_FALSE(parse({})->delay.start_trigger);
}

TEST(Options, RingBufferPagesRoundUpToAPowerOfTwo)
{
    for (auto [given, want] : std::vector<std::pair<const char*, uint32_t>>{
             {"1", 1}, {"3", 4}, {"1024", 1024}, {"1025", 2048}})
        EXPECT_EQ(parse({"--buffer-page-count", given})->delay.features.buffer_page_count, want) << given;
}

// The trigger's grammar is checked as the command line is read, before
// anything is asked of the system: not even the target need exist.
TEST(Options, ATriggerIsRefusedBeforeTheTargetIsLookedAt)
{
    const auto e = parse_error({"-p", "4194304", "--start-trigger", "t:a:b) { x(); } int y(void *c"});
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code(), Exit::config) << e->what();
}

// --timeline: with --stall, a directory; without it, the samples' file,
// with the budget (its states). Five wait stacks by default in both: a
// sample keeps none, but its sched_switch verifies in far fewer
// instructions with the step (delay_options.cpp).
TEST(Options, ATimelineIsAStallsDirectoryOrTheSamplesFile)
{
    const auto s = parse({"--stall", "1ms", "--timeline", "/tmp"});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->delay.timeline, "/tmp");
    EXPECT_TRUE(s->delay.features.timeline);
    EXPECT_EQ(s->delay.features.wait_stacks, 5u);
    EXPECT_EQ(parse({"--stall", "1ms", "--timeline", "/tmp", "--wait-stacks", "2"})->delay.features.wait_stacks, 2u);
    EXPECT_EQ(parse({"--stall", "1ms"})->delay.features.wait_stacks, 0u);

    const auto t = parse({"--timeline", "/tmp/kdelay-samples.pftrace"});
    ASSERT_TRUE(t);
    EXPECT_FALSE(t->delay.stall);
    EXPECT_EQ(t->delay.timeline, "/tmp/kdelay-samples.pftrace");
    EXPECT_TRUE(t->delay.features.timeline);
    EXPECT_TRUE(t->delay.features.budget);
    EXPECT_EQ(t->delay.features.wait_stacks, 5u);
}

TEST(Options, SyscallEventsTakesAnOptionalThreshold)
{
    EXPECT_EQ(*parse({"--syscall-events"})->delay.features.syscall_events, 0u);
    EXPECT_EQ(*parse({"-s"})->delay.features.syscall_events, 0u);
    EXPECT_EQ(*parse({"--syscall-events", "50000"})->delay.features.syscall_events, 50000u);
    EXPECT_EQ(*parse({"-s", "7", "--sample-time", "1"})->delay.features.syscall_events, 7u);
    EXPECT_EQ(*parse({"--syscall-events", "--sample-time", "1"})->delay.features.syscall_events, 0u);
    EXPECT_EQ(error_code({"--syscall-events", "abc"}), Exit::usage);
    EXPECT_EQ(error_code({"--buffer-page-count", "0"}), Exit::usage);
}

// What an option implies is said at the end of its --help, from the same
// table the command line's reading applies (delay_options.cpp), and applied.
TEST(Options, EachImplicationIsSaidInItsHelpAndApplied)
{
    testing::internal::CaptureStdout();
    EXPECT_FALSE(parse({"--help"}));
    // Whitespace as one space: CLI11 versions lay out the words differently.
    const auto flat = [](const std::string& s) { return std::regex_replace(s, std::regex(R"(\s+)"), " "); };
    const std::string help = testing::internal::GetCapturedStdout();
    // Each option: its line in --help, and a command line that gives it.
    const std::map<std::string, std::pair<std::string, std::vector<const char*>>> given = {
        {"--stall", {"--stall THRESHOLD", {"--stall", "10ms"}}},
        {"--timeline", {"--timeline PATH", {"--timeline", "/tmp/kdelay-implication.pftrace"}}},
    };
    ASSERT_EQ(option_implications().size(), given.size()) << "a new implication: give its option here";
    for (const OptionImplication& i : option_implications()) {
        SCOPED_TRACE(i.option);
        const auto& [line, argv] = given.at(i.option);
        const size_t at = help.find(line);
        ASSERT_NE(at, std::string::npos);
        // Its text runs to the next option's line.
        const std::string text = flat(help.substr(at, help.find("\n  -", at) - at));
        EXPECT_NE(text.find(flat(i.effect)), std::string::npos) << text;

        std::vector<const char*> args = {"--ebpf", "-p", "1"};
        args.insert(args.end(), argv.begin(), argv.end());
        const auto o = parse(args);
        ASSERT_TRUE(o);
        EXPECT_TRUE(i.given(o->delay));
        const DelayFeatures f = o->delay.features;
        DelayFeatures again = f;
        i.apply(again);
        EXPECT_EQ(again.budget, f.budget) << "applied";
        EXPECT_EQ(again.upcall_stats, f.upcall_stats) << "applied";
        EXPECT_FALSE(i.given(DelayConfig{}));
    }
}
