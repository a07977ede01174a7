// Where each mode runs. annotate needs no eBPF. The other modes need libbcc,
// and loading libbcc (with LLVM and clang) costs ~0.1 s and ~3,900 page
// faults before main(). So kdelay is built twice from the same sources:
//   kdelay      the front end, without libbcc: it parses and checks the
//               options, runs annotate, and execs kdelay-bpf for the rest;
//   kdelay-bpf  every mode, linked with libbcc.
// Each binary links exactly one definition of run_bpf_mode().
#pragma once

#include "app/options.h"

namespace kdelay {

// The command line as main() received it, for a hand-over by execv().
struct Invocation {
    int argc = 0;
    const char* const* argv = nullptr;
};

// Runs delay, biosnoop or record; returns the exit status.
int run_bpf_mode(const Options& options, const Invocation& invocation);

}  // namespace kdelay
