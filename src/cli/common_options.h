// What the options of every mode share, below the modes: the mode chosen,
// the output format, the target and the eBPF switches for debugging. Each
// mode's own values are declared in its folder; app/options.h gathers them.
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

struct CommonOptions {
    enum class Mode { delay, biosnoop, record, annotate };
    Mode mode = Mode::delay;
    // journal: each stall one journal entry (sys/systemd.h); the default
    // when stdout is the journal (the delay mode under systemd).
    enum class Format { text, json, journal };
    Format format = Format::text;
    bool format_given = false;
    std::vector<pid_t> pids;  // -p, in the order given, each once; empty: none
    std::string cgroup;       // --cgroup PATH; empty: none
    std::string unit;         // --unit NAME, a systemd unit's cgroup; empty: none
    unsigned debug = 0;             // BCC debug flags; nonzero also shows BCC's stderr
    bool print_ebpf = false;
    std::vector<std::string> command;  // after "--": start and trace this
};

}  // namespace kdelay
