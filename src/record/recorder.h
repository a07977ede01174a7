// The record mode: USDT probe hits of a running process, one line each, in
// the text format SPDK's trace.py reads: "NAME: arg=0x1f, other='text'".
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <sys/types.h>
#include <vector>

#include "cli/bpf_config.h"
#include "record/record_set.h"

namespace kdelay {

struct CommonOptions;
struct RecordOptions;
class ReportWriter;

struct RecordConfig {
    BpfConfig bpf;  // -p, -D, --ebpf
    RecordSet set;
    std::string output;  // "": stdout
    bool json = false;  // JSON Lines instead of trace.py's text format
};

// Loads the probe sets (--probes FILE..., or the embedded SPDK nvmf set) and
// checks root and the PID. Throws Error.
RecordConfig make_record_config(const CommonOptions& common, const RecordOptions& options);

std::string render_record_program(const RecordSet& set);

// One record as a line (without the newline): trace.py's text format, or a
// JSON object {"type":"record","probe":NAME,"args":{...}}.
std::string format_record(const RecordProbe& probe, const void* record);
std::string format_record_json(const RecordProbe& probe, const void* record);

// Records until Ctrl-C or the target's exit; notes and warnings go to log.
int run_record(const RecordConfig& cfg, ReportWriter& log);

}  // namespace kdelay
