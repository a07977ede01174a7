// Where each mode runs. annotate needs no eBPF. The other modes need libbcc,
// and loading libbcc (with LLVM and clang) costs ~0.1 s and ~3,900 page
// faults. So those modes are a module of their own:
//   kdelay         options, configs, reports and annotate, without libbcc:
//                  it parses and checks the command line once;
//   kdelay-bpf.so  delay, biosnoop and record, linked with libbcc, loaded
//                  by kdelay only for them and handed the parsed options.
// --help, option errors and annotate never load libbcc.
#pragma once

#include "app/options.h"

namespace kdelay {

// Runs delay, biosnoop or record; returns the exit status. In kdelay it
// loads kdelay-bpf.so and calls its kKdelayBpfEntry.
int run_bpf_mode(const Options& options);

}  // namespace kdelay

// kdelay-bpf.so's one exported function: run_bpf_mode() there. Same build,
// same compiler, so Options crosses as it is. Errors come back as the exit
// status, kdelay's line already printed.
extern "C" int kdelay_bpf_run(const kdelay::Options* options);
inline constexpr const char* kKdelayBpfEntry = "kdelay_bpf_run";
