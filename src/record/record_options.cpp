#include "record/record_options.h"

namespace kdelay {

void add_record_command(CLI::App& app, CommonOptions& common, RecordConfig& values, Subcommand& c, std::vector<unsigned>& debug_flags)
{
    begin_subcommand(app, c, CommonOptions::Mode::record, "record",
                     "Record USDT probe hits of a process, one line each in the format SPDK's\n"
                     "trace.py reads (NAME: arg=0x1f, other='text'). By default the SPDK NVMe-oF\n"
                     "qpair probes (probes/spdk_nvmf.json). Ctrl-C ends the recording.",
                     "record does not start a command; use -p PID");
    c.pid_opt = add_pid_option(*c.app, c.pids, "Process to record", false);
    c.app->add_option("--probes", values.probes, "A probe-set file; may repeat")->type_name("FILE");
    c.app->add_option("-o,--output", values.output, "Write here instead of stdout")->type_name("FILE");
    c.app->add_flag("-g,--ebpf", common.print_ebpf, "Print the generated eBPF program and exit");
    add_format_option(*c.app, common, "text (default: trace.py's format) or json (JSON Lines)");
    c.debug_opt = add_debug_option(*c.app, debug_flags);
}

}  // namespace kdelay
