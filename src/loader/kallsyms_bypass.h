// Keeps libbcc's compiler from loading all of /proc/kallsyms.
//
// On every compile, BCC 0.26's front end builds a kernel symbol cache (about
// 120 k symbols: 0.15-0.2 s of a 0.45 s start here) only to ask whether the
// kernel has the helpers bpf_probe_read_kernel and bpf_probe_read_user. kdelay
// defines the exported libbcc entry points bcc_symcache_new,
// bcc_symcache_resolve_name and bcc_free_symcache itself; libbcc calls them
// through its PLT, so the executable's definitions win. Outside a
// KallsymsBypass they forward to libbcc unchanged. Inside one, a kernel symbol
// cache made on that thread answers those helper names by asking the
// verifier (libbpf_probe_bpf_helper, well under a millisecond) and forwards
// any other name to a real cache, loaded only then.
#pragma once

namespace kdelay {

class KallsymsBypass {
public:
    KallsymsBypass();
    ~KallsymsBypass();
    KallsymsBypass(const KallsymsBypass&) = delete;
    KallsymsBypass& operator=(const KallsymsBypass&) = delete;

    // How many helper lookups were answered without kallsyms since start
    // (tests use it to prove libbcc's calls reach kdelay's definitions).
    static unsigned long answered();
};

}  // namespace kdelay
