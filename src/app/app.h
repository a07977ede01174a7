// kdelay's entry point: options -> config -> eBPF -> session -> report.
#pragma once

#include <functional>

namespace kdelay {

// Runs kdelay and returns the process exit status. Errors are reported on
// stderr as one line.
int run_app(int argc, const char* const* argv);

// Runs run and returns its status, or an Error's exit code with its one
// line on stderr (any other exception: 70). Shared by kdelay and
// kdelay-bpf.so, whose errors stay on its side.
int reporting_errors(const std::function<int()>& run);

}  // namespace kdelay
