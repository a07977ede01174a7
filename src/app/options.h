// The command line, parsed but not yet validated against the system: what
// all modes share, then each mode's own values. Above the modes: it gathers
// what each declares in its folder.
#pragma once

#include <optional>

#include "annotate/annotate_config.h"
#include "block/biosnoop_config.h"
#include "cli/common_options.h"
#include "delay/config.h"
#include "record/record_config.h"

namespace kdelay {

struct Options {
    CommonOptions common;
    DelayConfig delay;  // completed against the system by run_app() (complete_delay_config)
    BiosnoopConfig biosnoop;  // completed by run_bpf_mode() (complete_biosnoop_config)
    RecordConfig record;      // completed by run_bpf_mode() (complete_record_config)
    AnnotateConfig annotate;  // completed by run_app() (complete_annotate_config)
};

// Parses argv. Returns nullopt when --help or --version was printed.
// Throws Error(Exit::usage) with one line on a bad option.
std::optional<Options> parse_options(int argc, const char* const* argv);

}  // namespace kdelay
