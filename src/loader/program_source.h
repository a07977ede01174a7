// The eBPF program's source: plain C files under bpf/, compiled into the
// binary, plus one header that kdelay writes from the run's final config.
//
// The files include each other ("delay/core.bpf.h") and the generated
// kd_config.h; assembling a program inlines those includes, each file once,
// so that BCC compiles one self-contained text. The files stay real C:
// they read, and compile, with an include path of bpf/ and a kd_config.h.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

#include "loader/btf_offsets.h"
#include "loader/config_names.h"
#include "sys/cgroup.h"

namespace kdelay {

// kd_config.h: #defines only, each a declared name (bpf/kd_config_names.h)
// and a number or a C type name, so nothing from the command line is ever
// spliced into C.
class ConfigHeader {
public:
    // The names this program's kd_config.h defines, all of them.
    explicit ConfigHeader(ConfigNames declared);
    // Each throws Error(Exit::software) for a name the program does not
    // declare, of another kind, or defined twice.
    void number(const std::string& name, uint64_t value);
    void flag(const std::string& name, bool on);
    // NAME_0, NAME_1, ... of an INDEXED name.
    // NAME_0 ... NAME_{places-1}: the values, then KD_NO_ID in the places
    // left, so that the kernel side compares with a constant in each.
    void indexed(const std::string& name, const std::vector<uint64_t>& values, size_t places);
    // Throws Error(Exit::config) unless type is a C identifier (__u32).
    void type(const std::string& name, const std::string& type);
    // Each name of an offsets list, with its member's offset in layout.
    template <class Layout>
    void offsets(const LayoutOffsets<Layout>& list, const Layout& layout)
    {
        for (const LayoutOffset<Layout>& o : list)
            number(o.name, (layout.*o.member).offset);
    }
    // Throws Error(Exit::software) naming the declared names not defined.
    void check_complete() const;
    const std::string& text() const { return text_; }

private:
    void define(const std::string& name, ConfigKind kind, const std::string& value);
    ConfigNames declared_;
    std::vector<std::string> names_;
    std::string text_;
};

// A cgroup target as the kernel side matches it.
struct CgroupMatch {
    CgroupTarget target;
    CgroupLayout layout;
};

// A cgroup's name as targets.bpf.h compares it (FNV-1a, target_abi.h).
uint64_t cgroup_name_hash(const std::string& name);

// How this kernel's eBPF finds cgroup; nullopt without one.
std::optional<CgroupMatch> match_cgroup(const std::optional<CgroupTarget>& cgroup, const KernelBtf& btf);

// The target for targets.bpf.h: its processes, TARGET_TGIDS (how many; 0:
// every process) and TARGET_TGID_0..., or its cgroup, TARGET_CGROUP_ID (0:
// none) with the offsets that lead from a task to it. Throws
// Error(Exit::software) for more than KD_MAX_TARGETS.
void add_targets(ConfigHeader& config, const std::vector<pid_t>& tgids,
                 const std::optional<CgroupMatch>& cgroup = std::nullopt);

// The name the parts include the generated header by.
inline constexpr const char* kConfigHeaderName = "kd_config.h";

// The parts (paths under bpf/) with their #include "..." lines inlined,
// each file once, and kd_config.h as config gives it. Throws
// Error(Exit::software) for a file that was not embedded or an
// #include <...> (the kernel side includes no system or kernel headers).
std::string assemble_program(const std::vector<std::string>& parts, const ConfigHeader& config);

// The same, with the files from file_text instead of the embedded ones.
using SourceFiles = std::function<std::string(const std::string& name)>;
std::string assemble_program(const std::vector<std::string>& parts, const ConfigHeader& config,
                             const SourceFiles& file_text);

}  // namespace kdelay
