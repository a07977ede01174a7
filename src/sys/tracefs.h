// tracefs: where tracepoints and kprobe support are visible.
#pragma once

#include <string>

namespace kdelay {

// /sys/kernel/tracing, mounting tracefs there first if needed. Throws
// Error(Exit::osfile) if it cannot be mounted.
std::string tracefs_dir();

bool tracepoint_exists(const std::string& system, const std::string& event);

// Whether this kernel was built with kprobes (CONFIG_KPROBES).
bool kprobes_available();

}  // namespace kdelay
