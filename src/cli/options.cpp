#include "cli/options.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <map>

#include "core/error.h"

namespace kdelay {
namespace {

const char* const kDescription =
    "kdelay: is the kernel to blame? For every thread of one process, shows where\n"
    "time went: syscalls, on-CPU run time, waiting for a CPU, stopped, hard and\n"
    "soft interrupts. Runs as root.\n\n"
    "  kdelay [OPTIONS]                 trace the single running ovs-vswitchd\n"
    "  kdelay -p PID [OPTIONS]          trace process PID\n"
    "  kdelay [OPTIONS] -- COMMAND ...  start COMMAND and trace it from its first instruction\n"
    "  kdelay biosnoop [-Q] [-p PID] [-d DISK] [--duration S]\n"
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
    const std::map<std::string, Options::Format> formats = {{"text", Options::Format::text},
                                                            {"json", Options::Format::json}};
    app.add_option("--format", opt.format, "Output format: text (default) or json (JSON Lines)")
        ->transform(CLI::CheckedTransformer(formats).description(""))
        ->type_name("text|json");
    app.add_flag("--histogram", opt.histogram,
                 "Add log2 latency histograms per thread: each syscall, run, ready, hard and soft IRQs");
    app.add_flag("--list-probes", opt.list_probes,
                 "List the target's USDT probes (executable and mapped libraries) and exit");
    auto* start_opt = app.add_option("--start-trigger", opt.start_trigger,
                   "Start sampling when TRIGGER fires (see TRIGGERS below)")
        ->type_name("TRIGGER");
    auto* stop_opt = app.add_option("--stop-trigger", opt.stop_trigger, "Stop sampling when TRIGGER fires")
        ->type_name("TRIGGER");
    app.add_option("--trigger-delta", opt.trigger_delta,
                   "Skip triggered samples shorter than this (default 0: report all)")
        ->type_name("NS");
    std::vector<uint64_t> syscall_events;
    auto* events_opt =
        app.add_option("-s,--syscall-events", syscall_events,
                       "Record each syscall taking longer than NS, with stack traces (bare: all)")
            ->expected(0, 1)
            ->type_name("[NS]");
    app.add_flag("--skip-syscall-poll-events", opt.skip_syscall_poll_events,
                 "Leave poll() out of --syscall-events");
    app.add_option("--stack-trace-size", opt.stack_trace_size,
                   "Unique stack traces that can be kept (default 4096; 0: none)")
        ->check(CLI::Range(0u, 1u << 20).description(""))
        ->type_name("N");
    app.add_option("--buffer-page-count", opt.buffer_page_count,
                   "Ring buffer pages, rounded up to a power of two (default 1024)")
        ->check(CLI::Range(1u, 1u << 18).description(""))
        ->type_name("N");
    app.footer("TRIGGERS\n"
               "  u|usdt:PROVIDER:PROBE           a USDT probe of the target\n"
               "  t|trace:SYSTEM:EVENT            a kernel tracepoint\n"
               "  k|kprobe:FUNC, kr|kretprobe:FUNC  kernel function entry/return (needs kprobes)\n"
               "  up|uprobe:[LIB:|/PATH:]FUNC     function entry in the target or a library\n"
               "  ur|upr|uretprobe:[LIB:|/PATH:]FUNC  function return\n"
               "Start only: sample --sample-time after the start. Stop only: from now to the\n"
               "stop. Both: from a start to the next stop.\n\n"
               "Exit status: 0 ok, 64 bad option, 65 malformed input file, 66 unreadable input\n"
               "file, 69 no such process, 70 eBPF compile or load failure, 71 attach failure,\n"
               "72 missing kernel headers or BTF, 73 cannot write output, 77 not root,\n"
               "78 invalid trigger.");

    auto* bio = app.add_subcommand(
        "biosnoop", "Trace block I/O: one line per request with its latency, like BCC's biosnoop.\n"
                    "Ends on Ctrl-C or after --duration with a summary per disk and operation.");
    int64_t bio_pid = 0;
    bio->add_flag("-Q,--queue", opt.bio_queue, "Also show the OS queue time, QUE(ms)");
    auto* bio_pid_opt = bio->add_option("-p,--pid", bio_pid, "Only I/O issued by this process")
                            ->check(CLI::Range(int64_t{1}, int64_t{4194304}).description(""))
                            ->type_name("PID");
    bio->add_option("-d,--disk", opt.bio_disk, "Only this disk (vda, nvme0n1)")->type_name("DISK");
    bio->add_option("--duration", opt.bio_duration, "Stop after this long (default: Ctrl-C)")
        ->check(CLI::Range(0.001, 31536000.0).description(""))
        ->type_name("SECONDS");
    bio->add_flag("-D{63},--debug{63}", opt.debug, "Show BCC's output; -D=FLAGS sets BCC debug flags");
    bio->add_flag("--ebpf", opt.print_ebpf, "Print the eBPF source and exit (no root needed)");
    bio->add_option("--format", opt.format, "Output format: text (default) or json (JSON Lines)")
        ->transform(CLI::CheckedTransformer(formats).description(""))
        ->type_name("text|json");

    auto* rec = app.add_subcommand(
        "record", "Record USDT probe hits of a process, one line each in the format SPDK's\n"
                  "trace.py reads (NAME: arg=0x1f, other='text'). By default the SPDK NVMe-oF\n"
                  "qpair probes (probes/spdk_nvmf.json). Ctrl-C ends the recording.");
    int64_t rec_pid = 0;
    auto* rec_pid_opt = rec->add_option("-p,--pid", rec_pid, "Process to record")
                            ->check(CLI::Range(int64_t{1}, int64_t{4194304}).description(""))
                            ->type_name("PID");
    rec->add_option("--probes", opt.record_probe_files, "A probe-set file; may repeat")
        ->type_name("FILE");
    rec->add_option("-o,--output", opt.record_output, "Write here instead of stdout")->type_name("FILE");
    rec->add_flag("-g,--ebpf", opt.print_ebpf, "Print the generated eBPF program and exit");
    rec->add_option("--format", opt.format, "text (default: trace.py's format) or json (JSON Lines)")
        ->transform(CLI::CheckedTransformer(formats).description(""))
        ->type_name("text|json");
    rec->add_flag("-D{63},--debug{63}", opt.debug, "Show BCC's output; -D=FLAGS sets BCC debug flags");

    auto* ann = app.add_subcommand(
        "annotate", "Print an SPDK trace (the JSON of spdk_trace -j) exactly as SPDK's trace.py\n"
                    "prints it, with each qpair argument inside a recorded qpair lifetime shown as\n"
                    "qpair(ptr=..., thread=N, qid=N, subnqn=..., hostnqn=...). Streams: any input\n"
                    "size in flat memory. Needs no root.");
    ann->add_option("-i,--input", opt.annotate_input, "spdk_trace -j output (default or '-': stdin)")
        ->type_name("FILE");
    ann->add_option("-b,--records,--bpftrace", opt.annotate_records,
                    "Probe records from kdelay record (or trace.py's bpftrace script)")
        ->type_name("FILE");
    ann->add_option("--probes", opt.record_probe_files,
                    "Probe-set file(s) the records follow (default: the SPDK nvmf set)")
        ->type_name("FILE");
    ann->add_flag("--only-listed-tpoints", opt.annotate_only_listed,
                  "Annotate only the tracepoints the probe set lists (trace.py's RDMA_REQ_* and\n"
                  "TCP_REQ_*), as trace.py does; by default any tracepoint with a qpair argument");
    ann->add_option("--format", opt.format, "text (default: trace.py's layout) or json (JSON Lines)")
        ->transform(CLI::CheckedTransformer(formats).description(""))
        ->type_name("text|json");
    ann->footer("Exit status: 0 ok, 64 bad option, 65 malformed trace or record file (the message\n"
                "gives the byte offset or line), 66 unreadable file, 74 read or write error.");

    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());
        app.parse(reversed);
    } catch (const CLI::CallForHelp& e) {
        std::cout << (*bio ? bio->help() : *rec ? rec->help() : *ann ? ann->help() : app.help());
        return std::nullopt;
    } catch (const CLI::CallForVersion& e) {
        std::cout << e.what() << "\n";
        return std::nullopt;
    } catch (const CLI::ParseError& e) {
        throw Error(Exit::usage, std::string(e.what()) + " (see kdelay --help)");
    }

    if (*ann) {
        opt.mode = Options::Mode::annotate;
        if (!opt.command.empty())
            throw Error(Exit::usage, "annotate does not start a command");
        return opt;
    }
    if (*rec) {
        opt.mode = Options::Mode::record;
        if (!opt.command.empty())
            throw Error(Exit::usage, "record does not start a command; use -p PID");
        if (*rec_pid_opt)
            opt.pid = static_cast<pid_t>(rec_pid);
        return opt;
    }
    if (*bio) {
        opt.mode = Options::Mode::biosnoop;
        if (!opt.command.empty())
            throw Error(Exit::usage, "biosnoop does not start a command; use -p PID");
        if (*bio_pid_opt)
            opt.pid = static_cast<pid_t>(bio_pid);
        return opt;
    }
    opt.has_start_trigger = start_opt->count() > 0;  // even when given as ""
    opt.has_stop_trigger = stop_opt->count() > 0;
    if (events_opt->count() > 0)
        opt.syscall_events = syscall_events.empty() ? 0 : syscall_events.front();

    if (*pid_opt) {
        if (!opt.command.empty())
            throw Error(Exit::usage, "-p/--pid and '-- COMMAND' cannot be used together");
        opt.pid = static_cast<pid_t>(pid);
    }
    return opt;
}

}  // namespace kdelay
