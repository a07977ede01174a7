// A loaded eBPF program and its attachments, released together (RAII).
#pragma once

#include <memory>
#include <cstdint>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "loader/map_io.h"
#include "loader/probe_set.h"
#include "core/unique_fd.h"

namespace ebpf {
class BPF;
}

namespace kdelay {

// A USDT probe to attach a function of the program to.
struct UsdtAttach {
    std::string binary;  // the object holding the probe, as BCC opens it
    std::string provider;
    std::string probe;
    std::string function;
    std::string shown;  // the object as messages name it ("": binary)
};

struct ProgramStats {
    std::string function;
    uint64_t run_time_ns = 0;
    uint64_t runs = 0;
};

// The kernel counts every BPF program's run time while this lives
// (BPF_ENABLE_STATS, Linux 5.8): two clock reads a run, so only on request.
class RunTimeStats {
public:
    RunTimeStats();
    bool on() const { return fd_.valid(); }

private:
    UniqueFd fd_;
};

class BpfSession {
public:
    // Compiles and loads source with libbcc. With debug (-D) nonzero BCC's
    // own stderr shows and gets these debug flags; else it is kept out of
    // sight. A compile or verifier error becomes Error(Exit::software)
    // quoting the first error line. USDT probes must be known here: BCC
    // generates their argument readers at compile time.
    explicit BpfSession(const std::string& source, unsigned debug = 0,
                        const std::vector<UsdtAttach>& usdts = {});
    // Detaches everything through ~BPF() (calling detach_all() ourselves
    // would make BCC 0.26 free twice).
    ~BpfSession();
    BpfSession(const BpfSession&) = delete;
    BpfSession& operator=(const BpfSession&) = delete;

    // Each throws Error(Exit::oserr) naming what failed.
    void attach(const std::vector<ProbeSpec>& probes);
    // By binary path with a PID filter: a PID-based probe made right after
    // fork finds nothing, and attach_usdt_all() ignores the PID.
    void attach_usdts(pid_t pid);
    void attach_uprobe(const std::string& binary, const std::string& symbol,
                       const std::string& function, bool on_return, pid_t pid);
    // An uprobe at a USDT probe's address, for one process (pid -1: every
    // process), the probe's semaphore raised by the kernel (offset 0: none).
    // A probe whose code reads no argument needs no BCC USDT object, so
    // one program serves any number of processes.
    void attach_usdt_site(const std::string& binary, uint64_t address, uint64_t semaphore_offset,
                          const std::string& function, pid_t pid);
    void attach_tracepoint(const std::string& tracepoint, const std::string& function);
    void attach_kprobe(const std::string& kernel_function, const std::string& function,
                       bool on_return);
    // function runs on every CPU each period_ns of CPU time spent there
    // (the software CPU clock, as perf's cpu-clock): a fixed period, so
    // that samples times the period is CPU time.
    void attach_cpu_clock(const std::string& function, uint64_t period_ns);

    // Loads and attaches the iterator program function (bpf_iter__TARGET)
    // now, if not yet: its load looks its target up in the kernel's BTF,
    // which took over half a second in an emulated guest.
    void prepare_iterator(const std::string& function);

    // Runs that iterator over what it iterates, and returns what it wrote;
    // prepared at its first run if not before. Throws Error(Exit::oserr)
    // when the kernel refuses it.
    std::string run_iterator(const std::string& function);

    ebpf::BPF& bpf() { return *bpf_; }

    // The program's maps, by name (a map it lacks: Error(Exit::software)).
    MapIo& maps() { return maps_; }

    // Runs of the attached programs the kernel skipped because the same
    // program was already running on that CPU: one preempted inside a
    // probe (kernels that run syscall probes preemptibly, as 7.2 does)
    // keeps every other task's run of it on that CPU out until it resumes.
    // 0 on kernels before 5.12, which do not count them.
    uint64_t skipped_runs();
    // Each attached program's run time and runs so far, by the kernel's
    // count (bpf_prog_info): zero unless run-time stats are on.
    std::vector<ProgramStats> program_stats();

private:
    // Runs attach() with BCC's noise hidden; a failure is Error(Exit::oserr).
    template <class Attach>
    void attach_quietly(const std::string& what, Attach&& attach);
    std::unique_ptr<ebpf::BPF> bpf_;
    MapIo maps_;
    std::vector<UsdtAttach> usdts_;
    std::vector<int> links_;  // tp_btf and iterator attachments (BCC keeps the others)
    std::vector<std::pair<std::string, int>> iterators_;  // function, its link in links_
    std::vector<std::pair<std::string, int>> programs_;  // attached: function, bpf_prog_type
    void attached(const std::string& function, int prog_type);
    bool verbose_;
};

// The most telling line of BCC's compiler or verifier output.
std::string first_error_line(const std::string& bcc_output, const std::string& fallback);

}  // namespace kdelay
