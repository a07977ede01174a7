// kdelay's entry point: options -> config -> eBPF -> session -> report.
#pragma once

namespace kdelay {

// Runs kdelay and returns the process exit status. Errors are reported on
// stderr as one line.
int run_app(int argc, const char* const* argv);

}  // namespace kdelay
