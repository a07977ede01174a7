// Loads and attaches BTF-typed raw tracepoint programs (tp_btf) with libbcc.
//
// In a tp_btf program the kernel types each tracepoint argument from BTF,
// so a field of a task the tracepoint passes (next's ids at a switch, the
// woken task's) is a plain load the JIT emits as one instruction, where a
// raw tracepoint needs a bpf_probe_read_kernel() call. BCC 0.26 loads a
// BPF_PROG_TYPE_TRACING program only as fentry: it resolves the function's
// name as a kernel function and leaves the expected attach type unset. So
// kdelay defines the two libbpf entry points libbcc calls for that
// (libbpf_find_vmlinux_btf_id, bpf_prog_load; through its PLT, so the
// executable's definitions win): a function named tp_btf__EVENT (or
// tp_btf__EVENT__STEP, a second program on EVENT) resolves to
// the kernel's btf_trace_EVENT and loads as BPF_TRACE_RAW_TP. Every other
// call goes to libbpf unchanged.
#pragma once

#include <string>

#include "loader/probe_set.h"  // kBtfTracepointPrefix

namespace ebpf {
class BPF;
class StatusTuple;
}

namespace kdelay {

// Loads function (tp_btf__EVENT) of bpf and attaches it to EVENT. On
// success *link is the attachment's fd (closing it detaches).
ebpf::StatusTuple attach_btf_tracepoint(ebpf::BPF& bpf, const std::string& function, int* link);

}  // namespace kdelay
