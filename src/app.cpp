#include "app.h"

#include <iostream>
#include <optional>

#include "annotate/annotate.h"
#include "block/biosnoop.h"
#include "block/block_program.h"
#include "record/recorder.h"
#include "bpf/btf_offsets.h"
#include "bpf/probe_set.h"
#include "bpf/session.h"
#include "cli/options.h"
#include "core/error.h"
#include "delay/collector.h"
#include "delay/config.h"
#include "delay/program.h"
#include "delay/sampler.h"
#include "report/json_writer.h"
#include "report/text_writer.h"
#include <memory>
#include "sys/event_wait.h"
#include "sys/launcher.h"
#include "sys/process.h"
#include "sys/syscall_names.h"
#include "trigger/resolve.h"
#include <unistd.h>

namespace kdelay {
namespace {

uint32_t poll_syscall_number()
{
    auto nr = syscall_number("poll");
    // Architectures without poll() (arm64) only have ppoll.
    return nr ? *nr : syscall_number("ppoll").value_or(UINT32_MAX);
}

// The executable a trigger without an object refers to.
std::string target_executable(const DelayConfig& cfg)
{
    if (!cfg.command.empty())
        return find_in_path(cfg.command[0]);
    char path[4096];
    const std::string link = "/proc/" + std::to_string(cfg.pid) + "/exe";
    const ssize_t n = readlink(link.c_str(), path, sizeof(path) - 1);
    return n > 0 ? std::string(path, static_cast<size_t>(n)) : link;
}

int list_probes(const DelayConfig& cfg)
{
    const auto probes = list_usdt_probes(cfg.command.empty() ? cfg.pid : 0, target_executable(cfg));
    for (const auto& p : probes)
        std::cout << p.provider << ":" << p.name << " " << p.binary << "\n";
    if (probes.empty())
        std::cerr << "kdelay: no USDT probes found" << std::endl;
    return 0;
}

// Attaches a resolved trigger to function in the program.
void attach_trigger(BpfSession& session, const ResolvedTrigger& r, const char* function, pid_t pid)
{
    const Trigger& t = r.trigger;
    switch (t.kind) {
    case Trigger::Kind::usdt:
        break;  // attached with the session's other USDT probes
    case Trigger::Kind::tracepoint:
        session.attach_tracepoint(t.system + ":" + t.event, function);
        break;
    case Trigger::Kind::kprobe:
    case Trigger::Kind::kretprobe:
        session.attach_kprobe(t.function, function, t.kind == Trigger::Kind::kretprobe);
        break;
    case Trigger::Kind::uprobe:
    case Trigger::Kind::uretprobe:
        session.attach_uprobe(r.binary, t.function, function, t.kind == Trigger::Kind::uretprobe, pid);
        break;
    }
}

std::unique_ptr<ReportWriter> make_writer(Options::Format format)
{
    if (format == Options::Format::json)
        return std::make_unique<JsonWriter>(std::cout);
    return std::make_unique<TextWriter>(std::cout);
}

int run_delay(DelayConfig cfg, ReportWriter& writer)
{
    if (cfg.list_probes)
        return list_probes(cfg);

    // Triggers are checked against the target before anything is compiled.
    const std::string exe = target_executable(cfg);
    std::optional<ResolvedTrigger> start, stop;
    if (!cfg.print_ebpf) {
        const pid_t existing = cfg.command.empty() ? cfg.pid : 0;
        if (cfg.start_trigger)
            start = resolve_trigger(*cfg.start_trigger, existing, exe);
        if (cfg.stop_trigger)
            stop = resolve_trigger(*cfg.stop_trigger, existing, exe);
    }

    std::optional<Launcher> launcher;
    if (!cfg.command.empty() && !cfg.print_ebpf) {
        launcher.emplace(cfg.command);
        cfg.pid = launcher->pid();
    }

    KernelBtf btf;
    const uint32_t poll_nr = poll_syscall_number();
    DelayProgramParams params;
    params.tgid = cfg.pid;
    params.poll_nr = poll_nr;
    params.sizes = size_delay_maps(cfg.pid ? thread_count(cfg.pid) : 1);
    params.layout = read_kernel_layout(btf);
    params.start_trigger = cfg.start_trigger.has_value();
    params.stop_trigger = cfg.stop_trigger.has_value();
    params.syscall_events = cfg.syscall_events;
    params.skip_poll_events = cfg.skip_syscall_poll_events;
    params.stack_trace_size = cfg.stack_trace_size;
    params.ringbuf_pages = cfg.ringbuf_pages;
    params.block = read_block_layout(btf);
    params.histograms = cfg.histograms;
    const std::string source = render_delay_program(params);
    if (cfg.print_ebpf) {
        std::cout << source;
        return 0;
    }

    std::vector<UsdtAttach> usdts;
    if (start && start->trigger.kind == Trigger::Kind::usdt)
        usdts.push_back({start->binary, start->trigger.provider, start->trigger.probe, kStartTriggerFunction});
    if (stop && stop->trigger.kind == Trigger::Kind::usdt)
        usdts.push_back({stop->binary, stop->trigger.provider, stop->trigger.probe, kStopTriggerFunction});

    BpfSession session(source, cfg.debug != 0, cfg.debug, usdts);
    session.attach(load_probe_set("delay"));
    if (params.block)
        session.attach(load_probe_set("block", block_features(params.block)));
    session.attach_usdts(cfg.pid);
    if (start)
        attach_trigger(session, *start, kStartTriggerFunction, cfg.pid);
    if (stop)
        attach_trigger(session, *stop, kStopTriggerFunction, cfg.pid);

    // Signals are taken over only now: until here Ctrl-C ends kdelay at once,
    // even inside a compile or a blocking open, and nothing is left behind
    // (a command held at the door sees its pipe close and exits).
    EventWait wait;
    DelayCollector collector(session, poll_nr, params.syscall_events.has_value(), params.stack_traces(),
                             params.block.has_value(), params.histograms, cfg.pid);
    wait.watch_process(cfg.pid);
    run_samples(cfg, collector, wait, writer, [&] {
        if (launcher)
            launcher->release();
    });
    return 0;
}

}  // namespace

int run_app(int argc, const char* const* argv)
{
    try {
        const auto options = parse_options(argc, argv);
        if (!options)
            return 0;
        if (options->mode == Options::Mode::annotate)
            return run_annotate(make_annotate_config(*options));
        if (options->mode == Options::Mode::record)
            return run_record(make_record_config(*options));
        const auto writer = make_writer(options->format);
        const int status = options->mode == Options::Mode::biosnoop
                               ? run_biosnoop(make_biosnoop_config(*options), *writer)
                               : run_delay(make_delay_config(*options), *writer);
        // A report that could not be written is not a success.
        if (!std::cout.flush())
            throw Error(Exit::ioerr, "cannot write the report to stdout");
        return status;
    } catch (const Error& e) {
        std::cout.flush();
        std::cerr << "kdelay: " << e.what() << std::endl;
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        std::cout.flush();
        std::cerr << "kdelay: internal error: " << e.what() << std::endl;
        return static_cast<int>(Exit::software);
    }
}

}  // namespace kdelay
