#include "loader/session.h"

#include <bcc/BPF.h>
#include <bcc/libbpf.h>
#include <bpf/bpf.h>
#include <linux/perf_event.h>
#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "loader/btf_tracepoint.h"
#include "loader/embedded.h"
#include "loader/kallsyms_bypass.h"
#include "core/error.h"
#include "sys/kernel_env.h"
#include "sys/mapped_pages.h"
#include "sys/stderr_capture.h"
#include "sys/tracefs.h"

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

namespace {

// LLVM ends the process with exit(1) on some backend errors (a program
// over BPF's 512-byte stack), from inside BPF::init, with the message in
// the capture. This says it in one line, with kdelay's exit code for it.
StderrCapture* g_compiling = nullptr;

void report_compiler_exit()
{
    if (!g_compiling)
        return;
    const std::string output = g_compiling->finish();
    g_compiling = nullptr;
    std::cout.flush();
    fprintf(stderr, "kdelay: eBPF program failed to compile: %s\n",
            first_error_line(output, "the compiler exited (-D shows BCC's output)").c_str());
    fflush(stderr);
    _exit(static_cast<int>(Exit::software));
}

}  // namespace

BpfSession::BpfSession(const std::string& source, unsigned debug, const std::vector<UsdtAttach>& usdts)
    // No rw engine: it JIT-compiles string readers for maps that only the
    // Python-style table API uses.
    : bpf_(std::make_unique<ebpf::BPF>(debug, nullptr, false)),
      maps_([this](const std::string& name) {
          const int fd = bpf_->get_table(name).get_fd();
          if (fd < 0)
              throw Error(Exit::software, "the eBPF program has no map named " + name);
          return fd;
      }),
      usdts_(usdts),
      verbose_(debug != 0)
{
    const KernelHeaders headers(embedded_folder("bcc_tree"));  // only BCC's compile needs them
    // BCC reads and writes tracefs for uprobes, USDT and kprobes, even when
    // it attaches through perf_event_open, and prints to stderr when it is
    // not mounted. Where it cannot be mounted the attach itself says so.
    mount_tracefs();
    std::vector<ebpf::USDT> probes;
    for (const auto& u : usdts_)
        probes.emplace_back(u.binary, u.provider, u.probe, u.function);
    StderrCapture capture(!verbose_);
    static const bool guarded = std::atexit(report_compiler_exit) == 0;
    (void)guarded;
    // What loading LLVM and clang touched (relocation tables, static
    // constructors) the compile does not need again, and what the compile
    // touched nothing needs after it: a third of the peak RSS.
    unmap_clean_pages_of(compiler_libraries());
    ebpf::StatusTuple status = [&] {
        KallsymsBypass bypass;
        g_compiling = &capture;
        // No debug info: kdelay's programs need no BTF of their own (plain
        // maps; tp_btf attaches by the kernel's BTF), and making it was an
        // eighth of startup. -D keeps it, for the verifier log's source lines.
        const std::vector<std::string> cflags = verbose_ ? std::vector<std::string>{} : std::vector<std::string>{"-g0"};
        auto st = bpf_->init(source, cflags, probes);
        g_compiling = nullptr;
        return st;
    }();
    const std::string output = capture.finish();
    unmap_clean_pages_of(compiler_libraries());
    if (status.ok())
        return;
    std::string message = status.msg();
    while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
        message.pop_back();
    // Clang's diagnostics carry "error:"; a verifier rejection does not.
    const bool compile = output.find("error:") != std::string::npos ||
                         message.find("compilation error") != std::string::npos;
    throw Error(Exit::software,
                std::string(compile ? "eBPF program failed to compile: "
                                    : "eBPF program failed to load: ") +
                    first_error_line(output, message) + (verbose_ ? "" : " (-D shows BCC's output)"));
}

BpfSession::~BpfSession()
{
    // ~BPF() detaches; what BCC says while doing so is noise unless -D.
    StderrCapture capture(!verbose_);
    for (int link : links_)
        close(link);
    bpf_.reset();
}

template <class Attach>
void BpfSession::attach_quietly(const std::string& what, Attach&& attach)
{
    StderrCapture capture(!verbose_);
    ebpf::StatusTuple status = attach();
    capture.finish();
    if (!status.ok())
        throw Error(Exit::oserr, "cannot attach " + what + ": " + status.msg());
}

void BpfSession::attach(const std::vector<ProbeSpec>& probes)
{
    for (const auto& p : probes)
        attach_quietly(p.function + " to " + p.target, [&] {
            auto attach_to = [&](const std::string& target) {
                switch (p.type) {
                case ProbeSpec::Type::raw_tracepoint: return bpf_->attach_raw_tracepoint(target, p.function);
                case ProbeSpec::Type::btf_tracepoint: {
                    int link = -1;
                    ebpf::StatusTuple status = attach_btf_tracepoint(*bpf_, p.function, &link);
                    if (status.ok())
                        links_.push_back(link);
                    return status;
                }
                case ProbeSpec::Type::tracepoint: return bpf_->attach_tracepoint(target, p.function);
                case ProbeSpec::Type::kprobe:
                    return bpf_->attach_kprobe(target, p.function, 0, BPF_PROBE_ENTRY);
                case ProbeSpec::Type::kretprobe:
                    return bpf_->attach_kprobe(target, p.function, 0, BPF_PROBE_RETURN);
                }
                return ebpf::StatusTuple(-1, "unknown probe type");
            };
            ebpf::StatusTuple status = attach_to(p.target);
            return status.ok() || p.fallback.empty() ? status : attach_to(p.fallback);
        });
    for (const auto& p : probes)
        attached(p.function, p.type == ProbeSpec::Type::raw_tracepoint   ? BPF_PROG_TYPE_RAW_TRACEPOINT
                             : p.type == ProbeSpec::Type::btf_tracepoint ? BPF_PROG_TYPE_TRACING
                             : p.type == ProbeSpec::Type::tracepoint     ? BPF_PROG_TYPE_TRACEPOINT
                                                                         : BPF_PROG_TYPE_KPROBE);
}

void BpfSession::attached(const std::string& function, int prog_type)
{
    const std::pair<std::string, int> program{function, prog_type};
    if (std::find(programs_.begin(), programs_.end(), program) == programs_.end())
        programs_.push_back(program);
}

uint64_t BpfSession::skipped_runs()
{
    uint64_t skipped = 0;
    for (const auto& [function, type] : programs_) {
        int fd = -1;  // BCC's, from the program it loaded for the attach
        if (!bpf_->load_func(function, static_cast<bpf_prog_type>(type), fd).ok())
            continue;
        bpf_prog_info info{};
        uint32_t len = sizeof(info);
        if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
            skipped += info.recursion_misses;
    }
    return skipped;
}

std::vector<ProgramStats> BpfSession::program_stats()
{
    std::vector<ProgramStats> stats;
    for (const auto& [function, type] : programs_) {
        int fd = -1;
        if (!bpf_->load_func(function, static_cast<bpf_prog_type>(type), fd).ok())
            continue;
        bpf_prog_info info{};
        uint32_t len = sizeof(info);
        if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
            stats.push_back(ProgramStats{function, info.run_time_ns, info.run_cnt});
    }
    return stats;
}

RunTimeStats::RunTimeStats() : fd_(bpf_enable_stats(BPF_STATS_RUN_TIME)) {}

void BpfSession::attach_usdts(pid_t pid)
{
    for (const auto& u : usdts_)
        attach_quietly("USDT " + u.provider + ":" + u.probe + " in " + (u.shown.empty() ? u.binary : u.shown), [&] {
            return bpf_->attach_usdt(ebpf::USDT(u.binary, u.provider, u.probe, u.function), pid);
        });
    for (const auto& u : usdts_)
        attached(u.function, BPF_PROG_TYPE_KPROBE);
}

void BpfSession::attach_uprobe(const std::string& binary, const std::string& symbol,
                               const std::string& function, bool on_return, pid_t pid)
{
    attach_quietly("uprobe " + binary + ":" + symbol, [&] {
        return bpf_->attach_uprobe(binary, symbol, function, 0,
                                   on_return ? BPF_PROBE_RETURN : BPF_PROBE_ENTRY, pid);
    });
    attached(function, BPF_PROG_TYPE_KPROBE);
}

void BpfSession::attach_cpu_clock(const std::string& function, uint64_t period_ns)
{
    attach_quietly(fmt::format("{} to the CPU clock every {} ns", function, period_ns), [&] {
        return bpf_->attach_perf_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, function, period_ns, 0);
    });
    attached(function, BPF_PROG_TYPE_PERF_EVENT);
}

void BpfSession::attach_usdt_site(const std::string& binary, uint64_t address, uint64_t semaphore_offset,
                                  const std::string& function, pid_t pid)
{
    attach_quietly(fmt::format("USDT probe at {}:{:#x}", binary, address), [&] {
        return bpf_->attach_uprobe(binary, "", function, address, BPF_PROBE_ENTRY, pid, 0,
                                   static_cast<uint32_t>(semaphore_offset));
    });
    attached(function, BPF_PROG_TYPE_KPROBE);
}

void BpfSession::attach_tracepoint(const std::string& tracepoint, const std::string& function)
{
    attach_quietly("tracepoint " + tracepoint,
                   [&] { return bpf_->attach_tracepoint(tracepoint, function); });
    attached(function, BPF_PROG_TYPE_TRACEPOINT);
}

void BpfSession::attach_kprobe(const std::string& kernel_function, const std::string& function,
                               bool on_return)
{
    attach_quietly("kprobe " + kernel_function, [&] {
        return bpf_->attach_kprobe(kernel_function, function, 0,
                                   on_return ? BPF_PROBE_RETURN : BPF_PROBE_ENTRY);
    });
    attached(function, BPF_PROG_TYPE_KPROBE);
}

void BpfSession::prepare_iterator(const std::string& function)
{
    if (std::any_of(iterators_.begin(), iterators_.end(), [&](const auto& i) { return i.first == function; }))
        return;
    int prog = -1;
    int link = -1;
    attach_quietly("iterator " + function, [&] {
        ebpf::StatusTuple loaded = bpf_->load_func(function, BPF_PROG_TYPE_TRACING, prog);
        if (!loaded.ok())
            return loaded;
        link = bcc_iter_attach(prog, nullptr, 0);
        return link < 0 ? ebpf::StatusTuple(-1, "cannot attach %s: %s", function.c_str(), std::strerror(errno))
                        : ebpf::StatusTuple::OK();
    });
    links_.push_back(link);
    iterators_.emplace_back(function, link);
}

std::string BpfSession::run_iterator(const std::string& function)
{
    prepare_iterator(function);
    const auto it = std::find_if(iterators_.begin(), iterators_.end(), [&](const auto& i) { return i.first == function; });
    const int fd = bcc_iter_create(it->second);
    if (fd < 0)
        throw Error(Exit::oserr, "cannot run the iterator " + function + ": " + std::strerror(errno));
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) > 0)
        out.append(buf, static_cast<size_t>(n));
    const int err = n < 0 ? errno : 0;
    close(fd);
    if (err)
        throw Error(Exit::oserr, "cannot read the iterator " + function + ": " + std::strerror(err));
    return out;
}

}  // namespace kdelay
