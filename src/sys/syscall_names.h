// Syscall names for this machine's native ABI, from libseccomp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kdelay {

// "getppid" for 110 on x86_64; "syscall_N" when libseccomp does not know N.
std::string syscall_name(uint32_t nr);

// The native number of a syscall, if this ABI has it.
std::optional<uint32_t> syscall_number(const std::string& name);

}  // namespace kdelay
