// kdelay-bpf's modes: run here, with libbcc linked in.
#include <iostream>
#include <memory>

#include "app/modes.h"
#include "block/biosnoop.h"
#include "core/error.h"
#include "delay/config.h"
#include "delay/delay_mode.h"
#include "record/recorder.h"
#include "report/writers.h"

namespace kdelay {
namespace {

std::unique_ptr<ReportWriter> make_writer(Options::Format format, std::ostream& out)
{
    if (format == Options::Format::json)
        return make_json_writer(out);
    return make_text_writer(out);
}

}  // namespace

int run_bpf_mode(const Options& options, const Invocation&)
{
    // record's output is its records; its notes and warnings are kdelay's
    // diagnostics on stderr.
    if (options.mode == Options::Mode::record) {
        const auto log = make_diagnostics_writer(std::cerr);
        return run_record(make_record_config(options), *log);
    }
    const auto writer = make_writer(options.format, std::cout);
    const int status = options.mode == Options::Mode::biosnoop
                           ? run_biosnoop(make_biosnoop_config(options), *writer)
                           : run_delay(make_delay_config(options), *writer);
    // A report that could not be written is not a success.
    if (!std::cout.flush())
        throw Error(Exit::ioerr, "cannot write the report to stdout");
    return status;
}

}  // namespace kdelay
