#include "app/options.h"

#include <CLI/CLI.hpp>
#include <array>
#include <iostream>

#include "annotate/annotate_options.h"
#include "block/biosnoop_options.h"
#include "cli/option_kit.h"
#include "core/error.h"
#include "delay/delay_options.h"
#include "record/record_options.h"

namespace kdelay {
namespace {

const char* const kDescription =
    "kdelay: is the kernel to blame? For every thread of the processes it traces,\n"
    "shows where time went: syscalls, on-CPU run time, waiting for a CPU, stopped,\n"
    "hard and soft interrupts. Runs as root.\n\n"
    "  kdelay [OPTIONS]                 trace the single running ovs-vswitchd\n"
    "  kdelay -p PID[,PID...] [OPTIONS] trace these processes (up to 8)\n"
    "  kdelay [OPTIONS] -- COMMAND ...  start COMMAND and trace it from its first instruction\n"
    "  kdelay biosnoop [-Q] [-p PID,...] [-d DISK] [--duration S]\n"
    "                                   one line per block I/O (see kdelay biosnoop --help)\n"
    "  kdelay record -p PID [--probes FILE]... [-o FILE]\n"
    "                                   record USDT probe hits (SPDK qpairs by default)\n"
    "  kdelay annotate [-i TRACE.json] [-b RECORDS]\n"
    "                                   print an SPDK trace as trace.py does, qpairs annotated\n";

}  // namespace

std::optional<Options> parse_options(int argc, const char* const* argv)
{
    // Everything after the first "--" is the command to run, untouched by CLI11.
    std::vector<std::string> args;
    Options opt;
    bool in_command = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (!in_command && a == "--") {
            in_command = true;
            continue;
        }
        (in_command ? opt.common.command : args).push_back(a);
    }
    if (in_command && opt.common.command.empty())
        throw Error(Exit::usage, "'--' must be followed by a command to run");

    CLI::App app{kDescription, "kdelay"};
    app.set_version_flag("--version", "kdelay 0.1.0");
    app.get_formatter()->column_width(34);
#if CLI11_VERSION_MAJOR > 2 || (CLI11_VERSION_MAJOR == 2 && CLI11_VERSION_MINOR >= 6)
    // CLI11 2.6 reflows text into paragraphs; kdelay's is laid out by hand
    // (the usage lines above, option texts broken where they read well).
    app.get_formatter()->enable_description_formatting(false);
    app.get_formatter()->enable_footer_formatting(false);
    app.get_formatter()->right_column_width(1000);
    // "  -p, --pid PID", long names in a column just after the short ones.
    app.get_formatter()->long_option_alignment_ratio(6.f / 34);
#endif

    std::vector<unsigned> debug_flags;  // -D may come before the subcommand's name or after it
    DelayParse delay;
    add_delay_options(app, opt.common, opt.delay, delay, debug_flags);
    std::array<Subcommand, 3> subcommands;
    add_biosnoop_command(app, opt.common, opt.biosnoop, subcommands[0], debug_flags);
    add_record_command(app, opt.common, opt.record, subcommands[1], debug_flags);
    add_annotate_command(app, opt.common, opt.annotate, subcommands[2]);

    check_values_present(app, args);
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        const CLI::App* shown = &app;
        for (const Subcommand& c : subcommands)
            if (*c.app)
                shown = c.app;
        std::cout << shown->help();
        return std::nullopt;
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << "\n";
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        throw Error(Exit::usage, explain_parse_error(app, e) + " (see kdelay --help)");
    }

    const CLI::Option* used_debug = delay.debug_opt;
    for (const Subcommand& c : subcommands)
        if (c.debug_opt && c.debug_opt->count())
            used_debug = c.debug_opt;
    opt.common.debug = optional_value<unsigned>(used_debug, debug_flags, 0x3f).value_or(0);

    for (const Subcommand& c : subcommands) {
        if (!*c.app)
            continue;
        opt.common.mode = c.mode;
        if (!opt.common.command.empty())
            throw Error(Exit::usage, c.no_command);
        if (c.pid_opt && *c.pid_opt)
            opt.common.pids = distinct_pids(c.pids);
        return opt;
    }
    finish_delay_options(delay, opt.common, opt.delay);
    return opt;
}

}  // namespace kdelay
