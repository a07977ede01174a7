#include "loader/symbolizer.h"

#include <bcc/bcc_syms.h>
#include <fmt/format.h>

#include "sys/dwarf_unwind.h"
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

// How a frame no symbol names is shown, kernel or user.
std::string unknown_frame(uint64_t addr) { return fmt::format("[unknown] 0x{:x}", addr); }

// The kernel's symbols, one cache for every process's symbolizer, built at
// first use: /proc/kallsyms takes tens of milliseconds to read, and a
// stall watch symbolizes a stall of every process it sees.
void* shared_kernel_cache()
{
    static void* const cache = bcc_symcache_new(-1, nullptr);
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

Symbolizer::~Symbolizer() = default;

std::string Symbolizer::kernel(uint64_t addr)
{
    auto [it, fresh] = kernel_seen_.try_emplace(addr);
    if (fresh) {
        struct bcc_symbol sym {};
        if (bcc_symcache_resolve(shared_kernel_cache(), addr, &sym) != 0 || !sym.name) {
            it->second = unknown_frame(addr);
        } else {
            it->second = fmt::format("{}+0x{:x} [kernel]", sym.demangle_name ? sym.demangle_name : sym.name,
                                     sym.offset);
            bcc_symbol_free_demangle_name(&sym);
        }
    }
    return it->second;
}

void Symbolizer::load_user()
{
    if (user_tried_)
        return;
    user_tried_ = true;
    if (!files_ && process_alive(pid_))
        files_ = std::make_shared<DwarfUnwinder>(pid_);
}

std::string Symbolizer::user(uint64_t addr)
{
    auto [it, fresh] = user_seen_.try_emplace(addr);
    if (!fresh)
        return it->second;
    // Made at first use: a run without stacks never reads the files.
    load_user();
    if (auto named = files_ ? files_->symbol_at(addr) : std::nullopt)
        it->second = std::move(*named);
    else if (std::string other = unnamed_ ? unnamed_(addr) : std::string(); !other.empty())
        it->second = std::move(other);
    else
        it->second = unknown_frame(addr);
    return it->second;
}

}  // namespace kdelay
