#include "cli/options.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "core/error.h"

namespace kdelay {
namespace {

const char* const kDescription =
    "kdelay: is the kernel to blame? For every thread of one process, shows where\n"
    "time went: syscalls, on-CPU run time, waiting for a CPU, stopped, hard and\n"
    "soft interrupts. Runs as root.\n\n"
    "  kdelay [OPTIONS]                 trace the single running ovs-vswitchd\n"
    "  kdelay -p PID [OPTIONS]          trace process PID\n"
    "  kdelay [OPTIONS] -- COMMAND ...  start COMMAND and trace it from its first instruction\n";

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
        (in_command ? opt.command : args).push_back(a);
    }
    if (in_command && opt.command.empty())
        throw Error(Exit::usage, "'--' must be followed by a command to run");

    CLI::App app{kDescription, "kdelay"};
    app.set_version_flag("--version", "kdelay 0.1.0");
    app.get_formatter()->column_width(34);

    int64_t pid = 0;
    auto* pid_opt = app.add_option("-p,--pid", pid, "Process to trace (default: the single ovs-vswitchd)")
                        ->check(CLI::Range(int64_t{1}, int64_t{4194304}).description(""))
                        ->type_name("PID");
    app.add_option("--sample-time", opt.sample_time, "Length of one sample (default 0.5)")
        ->check(CLI::Range(0.001, 86400.0).description(""))
        ->type_name("SECONDS");
    app.add_option("--sample-count", opt.sample_count, "Number of samples (default 1)")
        ->check(CLI::Range(1u, 1000000u).description(""))
        ->type_name("RUNS");
    app.add_option("--sample-interval", opt.sample_interval, "Pause between samples (default 0)")
        ->check(CLI::Range(0.0, 86400.0).description(""))
        ->type_name("SECONDS");
    app.add_flag("-D{63},--debug{63}", opt.debug,
                 "Show BCC's output; -D=FLAGS also sets BCC debug flags (bare: 63)");
    app.add_flag("--ebpf", opt.print_ebpf,
                 "Print the eBPF source that would be compiled and exit (no root needed)");
    app.footer("Exit status: 0 ok, 64 bad option, 69 no such process, 70 eBPF compile or load\n"
               "failure, 71 attach failure, 72 missing kernel headers or BTF, 77 not root.");

    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        std::cout << app.help();
        return std::nullopt;
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << "\n";
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        throw Error(Exit::usage, std::string(e.what()) + " (see kdelay --help)");
    }

    if (*pid_opt) {
        if (!opt.command.empty())
            throw Error(Exit::usage, "-p/--pid and '-- COMMAND' cannot be used together");
        opt.pid = static_cast<pid_t>(pid);
    }
    return opt;
}

}  // namespace kdelay
