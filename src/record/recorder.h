// The record mode: USDT probe hits of a running process, one line each, in
// the text format SPDK's trace.py reads: "NAME: arg=0x1f, other='text'".
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <sys/types.h>
#include <vector>

#include "record/record_config.h"

namespace kdelay {

struct CommonOptions;
class ReportWriter;

// Loads the probe sets (--probes FILE..., or the embedded SPDK nvmf set),
// checks root and the PID, and fills cfg.set and cfg.bpf. Throws Error.
void complete_record_config(const CommonOptions& common, RecordConfig& cfg);

std::string render_record_program(const RecordSet& set);

// One record as a line (without the newline): trace.py's text format, or a
// JSON object {"type":"record","probe":NAME,"args":{...}}.
std::string format_record(const RecordProbe& probe, const void* record);
std::string format_record_json(const RecordProbe& probe, const void* record);

// Records until Ctrl-C or the target's exit; notes and warnings go to log.
int run_record(const RecordConfig& cfg, ReportWriter& log);

}  // namespace kdelay
