#include "loader/kallsyms_bypass.h"

#include <atomic>
#include <bcc/bcc_syms.h>
#include <bpf/libbpf.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <linux/bpf.h>
#include <mutex>
#include <unordered_set>

namespace kdelay {
namespace {

thread_local int bypass_depth = 0;
std::atomic<unsigned long> answered_count{0};

// libbcc's own definition of an entry point that kdelay overrides.
template <class Function>
Function libbcc(const char* name)
{
    void* symbol = dlsym(RTLD_NEXT, name);
    if (!symbol) {
        std::fprintf(stderr, "kdelay: libbcc has no %s\n", name);
        std::abort();
    }
    return reinterpret_cast<Function>(symbol);
}

using SymcacheNew = void* (*)(int, bcc_symbol_option*);
using SymcacheResolveName = int (*)(void*, const char*, const char*, uint64_t*);
using SymcacheFree = void (*)(void*, int);

SymcacheNew real_new() { static auto f = libbcc<SymcacheNew>("bcc_symcache_new"); return f; }
SymcacheResolveName real_resolve_name()
{
    static auto f = libbcc<SymcacheResolveName>("bcc_symcache_resolve_name");
    return f;
}
SymcacheFree real_free() { static auto f = libbcc<SymcacheFree>("bcc_free_symcache"); return f; }

// The helpers BCC's front end looks for by kernel symbol name.
int helper_id(const char* name)
{
    if (std::strcmp(name, "bpf_probe_read_kernel") == 0)
        return BPF_FUNC_probe_read_kernel;
    if (std::strcmp(name, "bpf_probe_read_user") == 0)
        return BPF_FUNC_probe_read_user;
    return -1;
}

// A kernel symbol cache that loads kallsyms only for a name it cannot answer.
struct LazyKernelCache {
    void* real = nullptr;
};

std::mutex lazy_caches_mutex;
std::unordered_set<void*> lazy_caches;  // BCC may keep one across compiles

bool is_lazy(void* cache)
{
    std::lock_guard<std::mutex> lock(lazy_caches_mutex);
    return lazy_caches.count(cache) != 0;
}

// 1 supported, 0 not, -1 the kernel could not say (then kallsyms decides).
int kernel_has_helper(int id)
{
    static std::mutex mutex;
    static int known[2] = {-2, -2};  // probe_read_kernel, probe_read_user
    const int slot = id == BPF_FUNC_probe_read_kernel ? 0 : 1;
    std::lock_guard<std::mutex> lock(mutex);
    if (known[slot] == -2) {
        const int r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT,
                                              static_cast<bpf_func_id>(id), nullptr);
        known[slot] = r < 0 ? -1 : r;
    }
    return known[slot];
}

}  // namespace

KallsymsBypass::KallsymsBypass() { ++bypass_depth; }
KallsymsBypass::~KallsymsBypass() { --bypass_depth; }
unsigned long KallsymsBypass::answered() { return answered_count.load(); }

}  // namespace kdelay

using kdelay::LazyKernelCache;

// The overrides. Signatures are libbcc's (bcc/bcc_syms.h).
extern "C" {

void* bcc_symcache_new(int pid, bcc_symbol_option* option)
{
    if (pid != -1 || kdelay::bypass_depth == 0)
        return kdelay::real_new()(pid, option);
    auto* cache = new LazyKernelCache;
    std::lock_guard<std::mutex> lock(kdelay::lazy_caches_mutex);
    kdelay::lazy_caches.insert(cache);
    return cache;
}

int bcc_symcache_resolve_name(void* resolver, const char* module, const char* name, uint64_t* addr)
{
    if (!kdelay::is_lazy(resolver))
        return kdelay::real_resolve_name()(resolver, module, name, addr);
    auto* cache = static_cast<LazyKernelCache*>(resolver);
    const int id = name ? kdelay::helper_id(name) : -1;
    if (id >= 0) {
        const int has = kdelay::kernel_has_helper(id);
        if (has >= 0) {
            ++kdelay::answered_count;
            *addr = 0;  // BCC asks whether it exists, never where
            return has ? 0 : -1;
        }
    }
    if (!cache->real)
        cache->real = kdelay::real_new()(-1, nullptr);  // kernel caches take no options
    return kdelay::real_resolve_name()(cache->real, module, name, addr);
}

void bcc_free_symcache(void* symcache, int pid)
{
    if (!kdelay::is_lazy(symcache)) {
        kdelay::real_free()(symcache, pid);
        return;
    }
    auto* cache = static_cast<LazyKernelCache*>(symcache);
    {
        std::lock_guard<std::mutex> lock(kdelay::lazy_caches_mutex);
        kdelay::lazy_caches.erase(cache);
    }
    if (cache->real)
        kdelay::real_free()(cache->real, -1);
    delete cache;
}

}  // extern "C"
