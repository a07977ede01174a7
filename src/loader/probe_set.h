// A probe set (probes/*.json): which kernel hooks a program's functions go on.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace kdelay {

// The prefix of a tp_btf program's function name; its tracepoint follows,
// then, for a second program on that tracepoint, kBtfTracepointStep and the
// step's name (tp_btf__sched_switch__timeline).
inline constexpr const char* kBtfTracepointPrefix = "tp_btf__";
inline constexpr const char* kBtfTracepointStep = "__";

struct ProbeSpec {
    enum class Type { raw_tracepoint, btf_tracepoint, tracepoint, kprobe, kretprobe };
    Type type;
    std::string target;    // "sched_switch", "block:block_rq_issue", or a kernel function
    std::string function;  // the eBPF function to attach; btf_tracepoint: tp_btf__TARGET
    std::string fallback;  // attach here instead when target does not exist (older kernels)
    std::string when;      // attach only when the caller names this feature; "" = always
};

// Parses a probe-set document. Throws Error(Exit::software) when malformed.
std::vector<ProbeSpec> parse_probe_set(const std::string& name, const std::string& json);

// The embedded probes/NAME.json, without the probes whose "when" feature
// is not among features.
std::vector<ProbeSpec> load_probe_set(const std::string& name, const std::set<std::string>& features = {});

}  // namespace kdelay
