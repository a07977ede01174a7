// The biosnoop mode: one line per block I/O, like BCC's biosnoop, on block
// tracepoints instead of kprobes.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>

#include "bpf/btf_offsets.h"
#include "bpf/program_source.h"
#include "cli/bpf_config.h"

namespace kdelay {

class ReportWriter;
struct CommonOptions;
struct BiosnoopOptions;

// pid 0: every process.
struct BiosnoopConfig {
    BpfConfig bpf;  // -p, -D, --ebpf
    bool queue = false;     // -Q: show OS queue time
    std::string disk;       // "": every disk
    uint32_t dev = 0;       // disk's MKDEV
    double duration = 0;    // seconds; 0: until Ctrl-C
};

// Checks root (unless --ebpf), the PID and the disk. Throws Error.
BiosnoopConfig make_biosnoop_config(const CommonOptions& common, const BiosnoopOptions& options);

// Assembles bpf/biosnoop.bpf.c and its config.
std::string render_biosnoop_program(const BiosnoopConfig& cfg, const BlockLayout& layout,
                                   const std::optional<CgroupMatch>& cgroup = std::nullopt);
// This kernel's block layout; Error(Exit::unavailable) without block tracepoints.
BlockLayout biosnoop_layout();

int run_biosnoop(const BiosnoopConfig& cfg, ReportWriter& writer);

}  // namespace kdelay
