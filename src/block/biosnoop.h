// The biosnoop mode: one line per block I/O, like BCC's biosnoop, on block
// tracepoints instead of kprobes.
#pragma once

#include <cstdint>
#include <string>
#include <sys/types.h>

#include "bpf/btf_offsets.h"

namespace kdelay {

class ReportWriter;
struct Options;

struct BiosnoopConfig {
    bool queue = false;     // -Q: show OS queue time
    pid_t pid = 0;          // 0: every process
    std::string disk;       // "": every disk
    uint32_t dev = 0;       // disk's MKDEV
    double duration = 0;    // seconds; 0: until Ctrl-C
    unsigned debug = 0;
    bool print_ebpf = false;
};

// Checks root (unless --ebpf), the PID and the disk. Throws Error.
BiosnoopConfig make_biosnoop_config(const Options& options);

// Renders templates/biosnoop.bpf.c.
std::string render_biosnoop_program(const BiosnoopConfig& cfg, const BlockLayout& layout);
// This kernel's block layout; Error(Exit::unavailable) without block tracepoints.
BlockLayout biosnoop_layout();

int run_biosnoop(const BiosnoopConfig& cfg, ReportWriter& writer);

}  // namespace kdelay
