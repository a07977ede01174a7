#include "app.h"

#include <iostream>
#include <optional>

#include "bpf/btf_offsets.h"
#include "bpf/probe_set.h"
#include "bpf/session.h"
#include "cli/options.h"
#include "core/error.h"
#include "delay/collector.h"
#include "delay/config.h"
#include "delay/program.h"
#include "delay/sampler.h"
#include "report/text_writer.h"
#include "sys/event_wait.h"
#include "sys/launcher.h"
#include "sys/process.h"
#include "sys/syscall_names.h"

namespace kdelay {
namespace {

uint32_t poll_syscall_number()
{
    auto nr = syscall_number("poll");
    // Architectures without poll() (arm64) only have ppoll.
    return nr ? *nr : syscall_number("ppoll").value_or(UINT32_MAX);
}

int run_delay(DelayConfig cfg)
{
    EventWait wait;  // blocks SIGINT/SIGTERM before any child is forked
    std::optional<Launcher> launcher;
    if (!cfg.command.empty() && !cfg.print_ebpf) {
        launcher.emplace(cfg.command);
        cfg.pid = launcher->pid();
    }

    KernelBtf btf;
    const uint32_t poll_nr = poll_syscall_number();
    const size_t threads = cfg.pid ? thread_count(cfg.pid) : 1;
    const std::string source = render_delay_program(
        DelayProgramParams{cfg.pid, poll_nr, size_delay_maps(threads), read_kernel_layout(btf)});
    if (cfg.print_ebpf) {
        std::cout << source;
        return 0;
    }

    BpfSession session(source, cfg.debug != 0, cfg.debug);
    session.attach(load_probe_set("delay"));
    DelayCollector collector(session, poll_nr);
    wait.watch_process(cfg.pid);
    TextWriter writer(std::cout);
    run_time_mode(cfg, collector, wait, writer, [&] {
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
        return run_delay(make_delay_config(*options));
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
