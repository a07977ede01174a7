// Where a process's program calls the poll family, for --stall's call
// sites (bpf/delay_abi.h, KD_LOOP_SITES): the address ranges of the
// program's code, and the addresses its calls of poll(), epoll_wait(), ...
// go through: their GOT slots (a call through the PLT or with -fno-plt) or,
// in a static program, the functions themselves.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

// An executable mapping of a file in a process: [lo, hi), at file offset.
struct CodeMapping {
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint64_t offset = 0;
};

// The executable mappings of the file `program` in a /proc/PID/maps text,
// in its order; lines it cannot read are passed over.
std::vector<CodeMapping> code_mappings(std::istream& maps, const std::string& program);

struct ProgramText {
    std::vector<CodeMapping> code;
    std::vector<uint64_t> poll_targets;  // run-time addresses
};

// The program's poll-family call targets in the ELF file at path, as
// addresses of the file (add the load bias); empty when it is no ELF.
std::vector<uint64_t> poll_call_targets(const std::string& path);

// Both of process pid, read through /proc/PID/exe and /proc/PID/maps (the
// process's own view, in a container too); empty when it is gone or
// cannot be read.
ProgramText program_text(pid_t pid);

}  // namespace kdelay
