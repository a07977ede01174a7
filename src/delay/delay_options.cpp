#include "delay/delay_options.h"

#include <fmt/format.h>
#include <linux/types.h>

#include "core/error.h"
#include "delay_abi.h"
#include "sys/systemd.h"
#include "trigger/trigger.h"

namespace kdelay {

const std::vector<OptionImplication>& option_implications()
{
    static const std::vector<OptionImplication> all = {
        // A stall's report is its time budget; upcalls are counted per CPU,
        // not per thread.
        {"--stall", "turns --budget on, and the upcall statistics (per CPU, not per thread) off",
         [](const DelayConfig& o) { return o.stall.has_value(); },
         [](DelayFeatures& f) {
             f.budget = true;
             f.upcall_stats = false;
         }},
        // The timeline's states are the budget's.
        {"--timeline", "turns --budget on", [](const DelayConfig& o) { return !o.timeline.empty(); },
         [](DelayFeatures& f) { f.budget = true; }},
    };
    return all;
}

namespace {

// help, then what option implies (option_implications()), on a line of its own.
std::string with_implications(const char* option, std::string help)
{
    for (const OptionImplication& i : option_implications())
        if (std::string(i.option) == option)
            help += std::string(";\n") + i.effect;
    return help;
}

}  // namespace

void add_delay_options(CLI::App& app, CommonOptions& common, DelayConfig& delay, DelayParse& d,
                       std::vector<unsigned>& debug_flags)
{
    d.pid_opt = add_pid_option(app, d.pids, "Processes to trace, in one report (default: the single ovs-vswitchd)",
                               true);
    add_cgroup_options(app, common);
    d.sample_opts = {
        app.add_option("--sample-time", delay.sample_time, "Length of one sample (default 0.5)")
            ->check(seconds(0.001, 86400))
            ->type_name("SECONDS"),
        app.add_option("--sample-count", delay.sample_count, "Number of samples (default 1)")
            ->check(whole_number(1, 1000000))
            ->type_name("RUNS"),
        app.add_option("--sample-interval", delay.sample_interval, "Pause between samples (default 0)")
            ->check(seconds(0, 86400))
            ->type_name("SECONDS"),
    };
    d.stall_opt = app.add_option("--stall", d.stall_text,
                                 with_implications("--stall",
                                                   "Instead of samples, watch each thread and report every interval of THRESHOLD\n"
                                                   "or longer as it ends: from a return from the thread's loop's wait (a poll()\n"
                                                   "of its family, at a call site where it blocks) to its next call, or per\n"
                                                   "thread from --start-trigger to --stop-trigger (see STALLS below)"))
                      ->check(duration(100000, 3600000000000))
                      ->type_name("THRESHOLD");
    d.duration_opt = app.add_option("--duration", delay.duration, "With --stall: stop after this long (default: Ctrl-C)")
                         ->check(seconds(0.001, 31536000))
                         ->type_name("SECONDS");
    d.debug_opt = add_debug_option(app, debug_flags);
    app.add_flag("--ebpf", common.print_ebpf,
                 "Print the eBPF source that would be compiled and exit (no root needed)");
    add_format_option(app, common,
                      "Output format: text (default), json (JSON Lines) or journal (each stall or sample one\n"
                      "systemd journal entry with its numbers as fields; the default when stdout is the journal)",
                      true);
    d.metrics_opt = app.add_option("--metrics", delay.metrics,
                                   "With --stall: keep FILE a Prometheus text file of the watch's counts (stalls,\n"
                                   "loop intervals, stall lengths, losses, restarts, kdelay's cost), rewritten every\n"
                                   "5 s; for node_exporter's textfile collector (see ALWAYS ON below)")
                        ->type_name("FILE");
    d.timeline_opt = app.add_option("--timeline", delay.timeline,
                                    with_implications("--timeline",
                                                      "Write the threads' events (states, syscalls, IRQs, wakeups, who held the CPU)\n"
                                                      "as a Perfetto trace, for ui.perfetto.dev: with --stall each stall's into the\n"
                                                      "directory PATH, else every sample's into the file PATH (not with --histogram)"))
                         ->type_name("PATH");
    d.wait_stacks_opt = app.add_option("--wait-stacks", d.wait_stacks,
                                       "With --stall: show the kernel and user stacks where each stall's N longest\n"
                                       "waits in a syscall began (default 5 with --timeline, else 0; at most 8)")
                            ->check(whole_number(0, KD_LONGEST_WAITS))
                            ->type_name("N");
    d.profile_opt = app.add_option("--profile", d.profile_hz,
                                   fmt::format("Sample where the target's threads run, HZ times a second of their CPU\n"
                                               "time, and show the stacks each ran in most: in each stall with --stall\n"
                                               "(default {}; 0: off), else over each sample (default off; at most {})",
                                               kDefaultProfileHz, kMaxProfileHz))
                        ->check(whole_number(0, kMaxProfileHz))
                        ->type_name("HZ");
    d.stack_copy_opt = app.add_option("--stack-copy", d.stack_copy,
                                      fmt::format("Copy BYTES of the user stack at each kept sample (--profile) and,\n"
                                                  "with --stall, wait, to unwind it with the binaries' .eh_frame, as\n"
                                                  "perf's --call-graph dwarf does (default {}; 0: frame pointers only;\n"
                                                  "a multiple of {}, at most {})",
                                                  kDefaultStackCopy, KD_STACK_COPY_CHUNK, kMaxStackCopy))
                           ->check(whole_number(0, kMaxStackCopy))
                           ->type_name("BYTES");
    d.profile_folded_opt = app.add_option("--profile-folded", delay.profile_folded,
                                          "With --stall: also write each stall's profile into the directory DIR as\n"
                                          "folded stacks (frame;frame;frame COUNT), for flamegraph.pl and speedscope")
                               ->type_name("DIR");
    for (const FeatureSwitch* s : feature_switches())
        app.add_flag_callback(s->flag, [&delay, s] { s->turn_on(delay.features); }, s->help);
    app.add_flag("--list-probes", delay.list_probes,
                 "List the target's USDT probes (executable and mapped libraries) and exit");
    d.start_opt = app.add_option("--start-trigger", d.start_trigger,
                                 "Start sampling when TRIGGER fires (see TRIGGERS below)")
                      ->type_name("TRIGGER");
    d.stop_opt = app.add_option("--stop-trigger", d.stop_trigger, "Stop sampling when TRIGGER fires")
                     ->type_name("TRIGGER");
    d.trigger_delta_opt = add_optional_value(app, "--trigger-delta", d.trigger_delta,
                                             "Skip triggered samples shorter than NS (default and bare: 0, report all)",
                                             "NS");
    d.events_opt = add_optional_value(app, "-s,--syscall-events", d.syscall_events,
                                      "Record each syscall taking longer than NS, with stack traces (bare: all)", "NS");
    app.add_flag("--skip-syscall-poll-events", delay.features.skip_syscall_poll_events,
                 "Leave poll() out of --syscall-events");
    app.add_flag_callback("--skip-upcall-stats", [&delay] { delay.features.upcall_stats = false; },
                 "Do not count Open vSwitch datapath upcalls (UPCALL STATISTICS)");
    app.add_option("--stack-trace-size", delay.features.stack_trace_size,
                   "Unique stack traces that can be kept (default 4096; 0: none); with n\n"
                   "distinct stacks about n/N are lost to hash slots")
        ->check(whole_number(0, 1u << 20))
        ->type_name("N");
    app.add_option("--buffer-page-count", d.buffer_page_count,
                   "Ring buffer pages, rounded up to a power of two (default 1024)")
        ->check(whole_number(1, 1u << 18))
        ->type_name("N");
    app.footer("TRIGGERS\n"
               "  u|usdt:PROVIDER:PROBE           a USDT probe of the target\n"
               "  t|trace:SYSTEM:EVENT            a kernel tracepoint\n"
               "  k|kprobe:FUNC, kr|kretprobe:FUNC  kernel function entry/return (needs kprobes)\n"
               "  up|uprobe:[LIB:|/PATH:]FUNC     function entry in the target or a library\n"
               "  ur|upr|uretprobe:[LIB:|/PATH:]FUNC  function return\n"
               "Start only: sample --sample-time after the start. Stop only: from now to the\n"
               "stop. Both: from a start to the next stop.\n\n"
               "STALLS\n"
               "  --stall 1s reports each interval of a thread lasting 1 s or more, as Open vSwitch's\n"
               "  'Unreasonably long poll interval' counts it, with where its time went: syscalls,\n"
               "  RUN, READY, STOPPED, IRQs and the time budget with READY blame and wakers.\n"
               "  An interval runs from the thread's loop's wait to the next: a call of the poll\n"
               "  family at a call site where the thread has blocked. Calls elsewhere that never\n"
               "  block (a latch check, epoll_wait(.., 0) between batches) do not end one; a call\n"
               "  at that site with timeout 0 does. A wait interrupted by a stop or a signal\n"
               "  (restarted, or EINTR) goes on. After a wait it blocked in, the interval begins as\n"
               "  the thread gets its CPU back, so a return whose probe the kernel skipped loses\n"
               "  nothing. Shorter intervals cost no work in kdelay.\n"
               "  THRESHOLD: 200ms, 1s, 500us (bare: ms), from 100us. A --cgroup or --unit watch\n"
               "  follows its unit's restarts. --timeline DIR also writes each stall as a Perfetto\n"
               "  trace, with the stacks of its 5 longest waits (the kernel keeps each thread's\n"
               "  last events of its interval: short intervals still cost kdelay nothing).\n\n"
               "ALWAYS ON\n"
               "  systemctl enable --now kdelay-stall@ovs-vswitchd watches that unit as a service:\n"
               "  each stall one journal entry (journalctl -u kdelay-stall@ovs-vswitchd, at most 5\n"
               "  a minute for each thread name, the rest counted), its counts in node_exporter's\n"
               "  textfile directory (--metrics). Settings: /etc/default/kdelay.\n\n"
               "SECONDS are digits with an optional decimal point (0.5); other numbers are whole\n"
               "digits. NaN, infinities, signs, hex and exponents are refused.\n\n"
               "Exit status: 0 ok, 64 bad option, 65 malformed input file, 66 unreadable input\n"
               "file, 69 no such process, 70 eBPF compile or load failure, 71 attach failure,\n"
               "72 missing kernel headers, BTF or kdelay-bpf.so, 73 cannot write output, 77 not root,\n"
               "78 invalid trigger.");
}

void finish_delay_options(const DelayParse& d, CommonOptions& common, DelayConfig& delay)
{
    DelayFeatures& f = delay.features;
    delay.trigger_delta = optional_value<uint64_t>(d.trigger_delta_opt, d.trigger_delta, 0).value_or(0);
    const bool start = d.start_opt->count() > 0, stop = d.stop_opt->count() > 0;  // even when given as ""
    f.syscall_events = optional_value<uint64_t>(d.events_opt, d.syscall_events, 0);
    if (d.stall_opt->count() > 0) {
        delay.stall = duration_ns(d.stall_text);
        for (const CLI::Option* o : d.sample_opts)
            if (o->count() > 0)
                throw Error(Exit::usage, "--stall watches every interval as it ends; " + o->get_name() +
                                             " is for samples, leave it out");
        if (f.histograms)
            throw Error(Exit::usage, "--histogram is for samples; --stall reports do not have histograms yet");
        if (d.events_opt->count() > 0)
            throw Error(Exit::usage, "--syscall-events is for samples; leave it out with --stall");
        if (start != stop)
            throw Error(Exit::usage, "--stall with triggers takes both: each thread's interval runs from its "
                                     "--start-trigger to its --stop-trigger");
        if (d.trigger_delta_opt->count() > 0)
            throw Error(Exit::usage, "--trigger-delta is for samples; with --stall, THRESHOLD is the shortest interval shown");
    } else if (d.duration_opt->count() > 0) {
        throw Error(Exit::usage, "--duration is for --stall; a sample's length is --sample-time");
    } else if (d.metrics_opt->count() > 0) {
        throw Error(Exit::usage, "--metrics counts a --stall watch's stalls; give --stall THRESHOLD");
    } else if (d.wait_stacks_opt->count() > 0) {
        throw Error(Exit::usage, "--wait-stacks shows each stall's longest waits; give --stall THRESHOLD");
    } else if (d.profile_folded_opt->count() > 0) {
        throw Error(Exit::usage, "--profile-folded writes each stall's profile; give --stall THRESHOLD");
    }
    if (d.timeline_opt->count() > 0 && delay.timeline.empty())
        throw Error(Exit::usage, delay.stall ? "--timeline: give a directory for the stalls' traces"
                                                : "--timeline: give a file for the samples' trace");
    // Together, a sample's sched_switch took Debian 13's clang past the
    // verifier's 1 M instructions (524 k under Debian 12's).
    if (d.timeline_opt->count() > 0 && !delay.stall && f.histograms)
        throw Error(Exit::usage, "--timeline and --histogram do not go together in a sample: their sched_switch "
                                 "program is more than the kernel's verifier accepts; give one of them");
    if (d.metrics_opt->count() > 0 && delay.metrics.empty())
        throw Error(Exit::usage, "--metrics: give a file, such as /var/lib/prometheus/node-exporter/kdelay.prom");
    if (start)
        delay.start_trigger = parse_trigger(d.start_trigger);
    if (stop)
        delay.stop_trigger = parse_trigger(d.stop_trigger);

    f.buffer_page_count = 1;
    while (f.buffer_page_count < d.buffer_page_count)
        f.buffer_page_count <<= 1;  // the kernel wants a power of two
    f.timeline = !delay.timeline.empty();
    for (const OptionImplication& i : option_implications())
        if (i.given(delay))
            i.apply(f);
    // A sample's timeline keeps the default too, though a sample opens no
    // interval to keep waits for: without that step its sched_switch took
    // the verifier from 289 k to 661 k instructions (bookworm's clang), past
    // 1 M under trixie's.
    f.wait_stacks = d.wait_stacks_opt->count() > 0 ? d.wait_stacks : f.timeline ? kDefaultWaitStacks : 0;
    if (f.wait_stacks && f.stack_trace_size == 0)
        throw Error(Exit::usage, "--wait-stacks needs stack traces; leave out --stack-trace-size 0");
    const bool profile_given = d.profile_opt->count() > 0;
    if (profile_given && d.profile_hz && f.stack_trace_size == 0)
        throw Error(Exit::usage, "--profile needs stack traces; leave out --stack-trace-size 0");
    // On by default with --stall; in a sample, when asked for.
    f.profile_hz = profile_given ? d.profile_hz : delay.stall && f.stack_trace_size ? kDefaultProfileHz : 0;
    if (d.stack_copy % KD_STACK_COPY_CHUNK)
        throw Error(Exit::usage, fmt::format("--stack-copy: give a multiple of {} bytes", KD_STACK_COPY_CHUNK));
    const bool copies = f.profile_hz || (delay.stall && f.wait_stacks);
    if (d.stack_copy_opt->count() > 0 && d.stack_copy && !copies)
        throw Error(Exit::usage, "--stack-copy copies the stacks of the samples of --profile and, with --stall, "
                                 "of the waits of --wait-stacks: give either");
    f.stack_copy_bytes = copies ? d.stack_copy : 0;
    if (d.profile_folded_opt->count() > 0 && delay.profile_folded.empty())
        throw Error(Exit::usage, "--profile-folded: give a directory for the stalls' folded stacks");
    if (!delay.profile_folded.empty() && !f.profile_hz)
        throw Error(Exit::usage, "--profile-folded writes each stall's profile; leave out --profile 0");

    // Under systemd, stdout is the journal: each stall one entry there.
    if (!common.format_given && stdout_is_journal())
        common.format = CommonOptions::Format::journal;
    if (common.format == CommonOptions::Format::journal)
        delay.stall_reports_per_minute = kJournalStallsPerMinute;
    if (*d.pid_opt) {
        if (!common.command.empty())
            throw Error(Exit::usage, "-p/--pid and '-- COMMAND' cannot be used together");
        common.pids = distinct_pids(d.pids);
    }
    delay.command = common.command;
}

}  // namespace kdelay
