#include "bpf/symbolizer.h"

#include <bcc/bcc_syms.h>
#include <fmt/format.h>

namespace kdelay {

bool is_tracer_frame(const std::string& frame)
{
    for (const char* prefix : {"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_",
                               "bpf_dispatcher_", "__bpf_prog_run"})
        if (frame.rfind(prefix, 0) == 0)
            return true;
    return false;
}

Symbolizer::Symbolizer(pid_t pid)
    : pid_(pid), kernel_cache_(bcc_symcache_new(-1, nullptr)), user_cache_(bcc_symcache_new(pid, nullptr))
{
}

Symbolizer::~Symbolizer()
{
    bcc_free_symcache(kernel_cache_, -1);
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
        it->second = resolve(kernel_cache_, addr, true);
    return it->second;
}

std::string Symbolizer::user(uint64_t addr)
{
    auto [it, fresh] = user_seen_.try_emplace(addr);
    if (fresh)
        it->second = resolve(user_cache_, addr, false);
    return it->second;
}

}  // namespace kdelay
