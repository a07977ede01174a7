#include "loader/btf_tracepoint.h"

#include <bcc/BPF.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

#include "loader/btf_offsets.h"

namespace kdelay {
namespace {

// libbpf's own definition of an entry point defined below.
template <class Function>
Function libbpf(const char* name, const char* version)
{
    void* symbol = dlvsym(RTLD_NEXT, name, version);
    if (!symbol) {
        std::fprintf(stderr, "kdelay: libbpf has no %s@%s\n", name, version);
        std::abort();
    }
    return reinterpret_cast<Function>(symbol);
}

// Whether type id of the kernel's BTF is a tracepoint's btf_trace_EVENT.
bool is_btf_trace_typedef(__u32 id)
{
    const btf* vmlinux = vmlinux_btf();
    const btf_type* t = vmlinux && id ? btf__type_by_id(vmlinux, id) : nullptr;
    return t && btf_is_typedef(t) && std::strncmp(btf__name_by_offset(vmlinux, t->name_off), "btf_trace_", 10) == 0;
}

}  // namespace

ebpf::StatusTuple attach_btf_tracepoint(ebpf::BPF& bpf, const std::string& function, int* link)
{
    int prog = -1;
    ebpf::StatusTuple loaded = bpf.load_func(function, BPF_PROG_TYPE_TRACING, prog);
    if (!loaded.ok())
        return loaded;
    *link = bpf_raw_tracepoint_open(nullptr, prog);
    if (*link < 0)
        return ebpf::StatusTuple(-1, "cannot attach %s: %s", function.c_str(), std::strerror(errno));
    return ebpf::StatusTuple::OK();
}

}  // namespace kdelay

using kdelay::kBtfTracepointPrefix;

// libbpf 1.2 made bpf_prog_load's opts writable (log_true_size comes back
// through them); the definition below must match the installed header.
#if LIBBPF_MAJOR_VERSION > 1 || (LIBBPF_MAJOR_VERSION == 1 && LIBBPF_MINOR_VERSION >= 2)
using ProgLoadOpts = bpf_prog_load_opts;
#else
using ProgLoadOpts = const bpf_prog_load_opts;
#endif

extern "C" int libbpf_find_vmlinux_btf_id(const char* name, enum bpf_attach_type type)
{
    const size_t prefix = std::strlen(kBtfTracepointPrefix);
    if (name && std::strncmp(name, kBtfTracepointPrefix, prefix) == 0) {
        const btf* vmlinux = kdelay::vmlinux_btf();
        if (!vmlinux)
            return -ESRCH;
        const char* event = name + prefix;
        const char* step = std::strstr(event, kdelay::kBtfTracepointStep);
        const int event_len = static_cast<int>(step ? step - event : std::strlen(event));
        char typedef_name[128];
        std::snprintf(typedef_name, sizeof(typedef_name), "btf_trace_%.*s", event_len, event);
        return btf__find_by_name_kind(vmlinux, typedef_name, BTF_KIND_TYPEDEF);
    }
    using Find = int (*)(const char*, enum bpf_attach_type);
    static const Find real = kdelay::libbpf<Find>("libbpf_find_vmlinux_btf_id", "LIBBPF_0.0.6");
    return real(name, type);
}

extern "C" int bpf_prog_load(enum bpf_prog_type type, const char* name, const char* license,
                             const struct bpf_insn* insns, size_t count, ProgLoadOpts* opts)
{
    using Load = int (*)(enum bpf_prog_type, const char*, const char*, const struct bpf_insn*, size_t,
                         ProgLoadOpts*);
    static const Load real = kdelay::libbpf<Load>("bpf_prog_load", "LIBBPF_0.6.0");
    if (type == BPF_PROG_TYPE_TRACING && opts && kdelay::is_btf_trace_typedef(opts->attach_btf_id)) {
        bpf_prog_load_opts raw_tp{};
        const size_t size = std::min(opts->sz, sizeof(raw_tp));  // a caller built against a newer libbpf
        std::memcpy(&raw_tp, opts, size);
        raw_tp.sz = size;
        raw_tp.expected_attach_type = BPF_TRACE_RAW_TP;
        return real(type, name, license, insns, count, &raw_tp);
    }
    return real(type, name, license, insns, count, opts);
}
