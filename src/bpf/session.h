// A loaded eBPF program and its attachments, released together (RAII).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "bpf/probe_set.h"

namespace ebpf {
class BPF;
}

namespace kdelay {

class BpfSession {
public:
    // Compiles and loads source with libbcc. BCC's own stderr output is kept
    // out of sight unless verbose; a compile or verifier error becomes
    // Error(Exit::software) quoting the first error line.
    BpfSession(const std::string& source, bool verbose, unsigned debug_flags = 0);
    // Detaches everything through ~BPF() (calling detach_all() ourselves
    // would make BCC 0.26 free twice).
    ~BpfSession();
    BpfSession(const BpfSession&) = delete;
    BpfSession& operator=(const BpfSession&) = delete;

    // Throws Error(Exit::oserr) naming the probe that failed.
    void attach(const std::vector<ProbeSpec>& probes);

    ebpf::BPF& bpf() { return *bpf_; }

private:
    std::unique_ptr<ebpf::BPF> bpf_;
    bool verbose_;
};

// The most telling line of BCC's compiler or verifier output.
std::string first_error_line(const std::string& bcc_output, const std::string& fallback);

}  // namespace kdelay
