// tracefs: where tracepoints and kprobe support are visible.
#pragma once

#include <string>

namespace kdelay {

// /sys/kernel/tracing, mounting tracefs there first if needed. Throws
// Error(Exit::osfile) if it cannot be mounted.
std::string tracefs_dir();

// The same, for callers that can do without: false, with errno, when
// tracefs is not there and cannot be mounted.
bool mount_tracefs();

bool tracepoint_exists(const std::string& system, const std::string& event);
bool tracepoint_exists(const std::string& system_event);  // "SYSTEM:EVENT"

// Whether this kernel was built with kprobes (CONFIG_KPROBES).
bool kprobes_available();

}  // namespace kdelay
