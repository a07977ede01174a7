#include "loader/symbolizer.h"

#include <bcc/bcc_syms.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/process.h"

namespace kdelay {

bool is_tracer_frame(const std::string& frame)
{
    for (const char* prefix : {"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_",
                               "bpf_dispatcher_", "__bpf_prog_run"})
        if (frame.rfind(prefix, 0) == 0)
            return true;
    return false;
}

namespace {

// BCC 0.26, building the symbol cache of a process that is gone (its
// /proc/PID/root no longer resolves), closes an uninitialized descriptor:
// whatever its stack holds. Under load that was 1, and the report after it
// was lost (EBADF, exit 74). A process that is gone is not asked; for the
// race with one that dies meanwhile, stdin, stdout and stderr are put back
// if the call closed or replaced them.
class KeepStdio {
public:
    KeepStdio()
    {
        for (int fd = 0; fd < 3; ++fd) {
            saved_[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
            if (saved_[fd] >= 0)
                fstat(saved_[fd], &was_[fd]);
        }
    }
    ~KeepStdio()
    {
        for (int fd = 0; fd < 3; ++fd) {
            if (saved_[fd] < 0)
                continue;
            struct stat now {};
            if (fstat(fd, &now) != 0 || now.st_dev != was_[fd].st_dev || now.st_ino != was_[fd].st_ino)
                dup2(saved_[fd], fd);
            close(saved_[fd]);
        }
    }
    KeepStdio(const KeepStdio&) = delete;
    KeepStdio& operator=(const KeepStdio&) = delete;

private:
    int saved_[3];
    struct stat was_[3] {};
};

// BCC reads a process's files through /proc/PID/root, which a process that
// has exited but is not yet reaped (still there for kill(2)) no longer has:
// that is BCC's case of the stray close above.
bool root_reachable(pid_t pid)
{
    struct stat st {};
    return stat(fmt::format("/proc/{}/root/", pid).c_str(), &st) == 0;
}

// The kernel's symbols, one cache for every process's symbolizer, built at
// first use: /proc/kallsyms takes tens of milliseconds to read, and a
// stall watch symbolizes a stall of every process it sees.
void* shared_kernel_cache()
{
    static void* const cache = [] {
        KeepStdio keep;
        return bcc_symcache_new(-1, nullptr);
    }();
    return cache;
}

}  // namespace

void Symbolizer::load_kernel()
{
    struct bcc_symbol sym {};
    // BCC reads /proc/kallsyms at the cache's first look-up.
    if (bcc_symcache_resolve(shared_kernel_cache(), 0, &sym) == 0)
        bcc_symbol_free_demangle_name(&sym);
}

Symbolizer::Symbolizer(pid_t pid) : pid_(pid) {}

Symbolizer::~Symbolizer()
{
    if (user_cache_)
        bcc_free_symcache(user_cache_, pid_);
}

std::string Symbolizer::resolve(void* cache, uint64_t addr, bool kernel)
{
    struct bcc_symbol sym {};
    if (!cache || bcc_symcache_resolve(cache, addr, &sym) != 0 || !sym.name)
        return fmt::format("[unknown] 0x{:x}", addr);
    std::string module = kernel ? "kernel" : (sym.module ? sym.module : "");
    if (auto slash = module.rfind('/'); slash != std::string::npos)
        module = module.substr(slash + 1);
    std::string out = fmt::format("{}+0x{:x} [{}]", sym.demangle_name ? sym.demangle_name : sym.name,
                                  sym.offset, module);
    bcc_symbol_free_demangle_name(&sym);
    return out;
}

std::string Symbolizer::kernel(uint64_t addr)
{
    auto [it, fresh] = kernel_seen_.try_emplace(addr);
    if (fresh)
        it->second = resolve(shared_kernel_cache(), addr, true);
    return it->second;
}

void Symbolizer::load_user()
{
    if (user_tried_)
        return;
    user_tried_ = true;
    if (process_alive(pid_) && root_reachable(pid_)) {
        KeepStdio keep;
        user_cache_ = bcc_symcache_new(pid_, nullptr);
    }
}

std::string Symbolizer::user(uint64_t addr)
{
    auto [it, fresh] = user_seen_.try_emplace(addr);
    // Made at first use: a run without stacks never builds it.
    if (fresh)
        load_user();
    if (fresh) {
        it->second = resolve(user_cache_, addr, false);
        if (unnamed_ && it->second.rfind("[unknown]", 0) == 0)
            if (std::string named = unnamed_(addr); !named.empty())
                it->second = std::move(named);
    }
    return it->second;
}

}  // namespace kdelay
