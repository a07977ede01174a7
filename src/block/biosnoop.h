// The biosnoop mode: one line per block I/O, like BCC's biosnoop, on block
// tracepoints instead of kprobes.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>

#include "block/biosnoop_config.h"
#include "loader/btf_offsets.h"
#include "loader/program_source.h"

namespace kdelay {

class ReportWriter;

// Checks root (unless --ebpf), the PID and the disk, and fills cfg.bpf and
// cfg.dev. Throws Error.
void complete_biosnoop_config(const CommonOptions& common, BiosnoopConfig& cfg);

// Assembles bpf/biosnoop.bpf.c and its config.
std::string render_biosnoop_program(const BiosnoopConfig& cfg, const BlockLayout& layout,
                                   const std::optional<CgroupMatch>& cgroup = std::nullopt);
// This kernel's block layout; Error(Exit::unavailable) without block tracepoints.
BlockLayout biosnoop_layout();

int run_biosnoop(const BiosnoopConfig& cfg, ReportWriter& writer);

}  // namespace kdelay
