#include "sys/syscall_names.h"

#include <cstdlib>
#include <seccomp.h>

namespace kdelay {

std::string syscall_name(uint32_t nr)
{
    char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, static_cast<int>(nr));
    if (!name)
        return "syscall_" + std::to_string(nr);
    std::string result(name);
    free(name);
    return result;
}

std::optional<uint32_t> syscall_number(const std::string& name)
{
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr < 0)
        return std::nullopt;
    return static_cast<uint32_t>(nr);
}

}  // namespace kdelay
