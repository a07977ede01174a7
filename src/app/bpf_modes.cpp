// kdelay-bpf.so: the modes that load eBPF, run with libbcc linked in.
#include <iostream>
#include <memory>

#include "app/app.h"
#include "app/modes.h"
#include "block/biosnoop.h"
#include "core/error.h"
#include "delay/config.h"
#include "delay/delay_mode.h"
#include "record/recorder.h"
#include "stall/stall_watch.h"
#include "report/writers.h"

namespace kdelay {
namespace {

std::unique_ptr<ReportWriter> make_writer(CommonOptions::Format format, std::ostream& out)
{
    if (format == CommonOptions::Format::json)
        return make_json_writer(out);
    if (format == CommonOptions::Format::journal)
        return make_journal_writer();
    return make_text_writer(out);
}

// The delay mode: a stall watch, or samples, of one loaded program.
int run_delay(const DelayConfig& cfg, ReportWriter& writer)
{
    const std::unique_ptr<DelayRun> run = DelayRun::start(cfg, writer);
    if (!run)
        return 0;  // --ebpf, --list-probes
    if (cfg.stall)
        watch_stalls(cfg, *run, writer);
    else
        sample_delays(cfg, *run, writer);
    return 0;
}

}  // namespace

int run_bpf_mode(const Options& options)
{
    // record's output is its records; its notes and warnings are kdelay's
    // diagnostics on stderr.
    if (options.common.mode == CommonOptions::Mode::record) {
        const auto log = make_diagnostics_writer(std::cerr);
        RecordConfig cfg = options.record;
        complete_record_config(options.common, cfg);
        return run_record(cfg, *log);
    }
    const auto writer = make_writer(options.common.format, std::cout);
    int status = 0;
    if (options.common.mode == CommonOptions::Mode::biosnoop) {
        BiosnoopConfig cfg = options.biosnoop;
        complete_biosnoop_config(options.common, cfg);
        status = run_biosnoop(cfg, *writer);
    } else {
        status = run_delay(options.delay, *writer);
    }
    // A report that could not be written is not a success.
    if (!std::cout.flush())
        throw Error(Exit::ioerr, "cannot write the report to stdout");
    return status;
}

}  // namespace kdelay

extern "C" int kdelay_bpf_run(const kdelay::Options* options)
{
    return kdelay::reporting_errors([options] { return kdelay::run_bpf_mode(*options); });
}
