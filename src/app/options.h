// Command-line options, parsed but not yet validated against the system:
// what all modes share, then each mode's own values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "annotate/annotate_option_values.h"
#include "block/biosnoop_option_values.h"
#include "delay/delay_option_values.h"
#include "record/record_option_values.h"

namespace kdelay {

struct Options {
    enum class Mode { delay, biosnoop, record, annotate };
    Mode mode = Mode::delay;
    enum class Format { text, json };
    Format format = Format::text;
    std::optional<pid_t> pid;
    unsigned debug = 0;             // BCC debug flags; nonzero also shows BCC's stderr
    bool print_ebpf = false;
    std::vector<std::string> command;  // after "--": start and trace this

    // Each mode's own values, declared in its folder.
    DelayOptions delay;
    BiosnoopOptions biosnoop;
    RecordOptions record;
    AnnotateOptions annotate;
};

// Parses argv. Returns nullopt when --help or --version was printed.
// Throws Error(Exit::usage) with one line on a bad option.
std::optional<Options> parse_options(int argc, const char* const* argv);

}  // namespace kdelay
