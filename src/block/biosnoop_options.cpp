#include "block/biosnoop_options.h"

namespace kdelay {

void add_biosnoop_command(CLI::App& app, CommonOptions& common, BiosnoopConfig& values, Subcommand& c, std::vector<unsigned>& debug_flags)
{
    begin_subcommand(app, c, CommonOptions::Mode::biosnoop, "biosnoop",
                     "Trace block I/O: one line per request with its latency, like BCC's biosnoop.\n"
                     "Ends on Ctrl-C or after --duration with a summary per disk and operation.",
                     "biosnoop does not start a command; use -p PID");
    c.app->add_flag("-Q,--queue", values.queue, "Also show the OS queue time, QUE(ms)");
    c.pid_opt = add_pid_option(*c.app, c.pids, "Only I/O issued by these processes (up to 8)", true);
    add_cgroup_options(*c.app, common);
    c.app->add_option("-d,--disk", values.disk, "Only this disk (vda, nvme0n1)")->type_name("DISK");
    c.app->add_option("--duration", values.duration, "Stop after this long (default: Ctrl-C)")
        ->check(seconds(0.001, 31536000))
        ->type_name("SECONDS");
    c.debug_opt = add_debug_option(*c.app, debug_flags);
    c.app->add_flag("--ebpf", common.print_ebpf, "Print the eBPF source and exit (no root needed)");
    add_format_option(*c.app, common, "Output format: text (default) or json (JSON Lines)");
}

}  // namespace kdelay
