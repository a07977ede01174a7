#include "bpf/session.h"

#include <bcc/BPF.h>
#include <sstream>

#include "core/error.h"
#include "sys/kernel_env.h"
#include "sys/stderr_capture.h"

namespace kdelay {

std::string first_error_line(const std::string& bcc_output, const std::string& fallback)
{
    std::istringstream lines(bcc_output);
    std::string line;
    while (std::getline(lines, line))
        if (line.find("error:") != std::string::npos)
            return line;
    return fallback.empty() ? "unknown error" : fallback;
}

BpfSession::BpfSession(const std::string& source, bool verbose, unsigned debug_flags)
    // No rw engine: it JIT-compiles string readers for maps that only the
    // Python-style table API uses.
    : bpf_(std::make_unique<ebpf::BPF>(debug_flags, nullptr, false)), verbose_(verbose)
{
    require_kernel_headers();
    StderrCapture capture(!verbose_);
    ebpf::StatusTuple status = bpf_->init(source);
    const std::string output = capture.finish();
    if (status.ok())
        return;
    std::string message = status.msg();
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
        message.pop_back();
    const bool compile = message.find("compilation error") != std::string::npos ||
                         message.find("Failed to compile") != std::string::npos;
    throw Error(Exit::software,
                std::string(compile ? "eBPF program failed to compile: "
                                    : "eBPF program failed to load: ") +
                    first_error_line(output, message) + (verbose_ ? "" : " (-D shows BCC's output)"));
}

BpfSession::~BpfSession() = default;

void BpfSession::attach(const std::vector<ProbeSpec>& probes)
{
    for (const auto& p : probes) {
        StderrCapture capture(!verbose_);
        ebpf::StatusTuple status =
            p.type == ProbeSpec::Type::raw_tracepoint
                ? bpf_->attach_raw_tracepoint(p.target, p.function)
                : bpf_->attach_tracepoint(p.target, p.function);
        capture.finish();
        if (!status.ok())
            throw Error(Exit::oserr, "cannot attach " + p.function + " to " + p.target + ": " +
                                         status.msg());
    }
}

}  // namespace kdelay
