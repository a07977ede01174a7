// Where a process's program calls the poll family, for --stall's call
// sites (bpf/delay_abi.h, KD_LOOP_SITES): the return address of each call
// of poll(), epoll_wait(), ... in the program's code, and the function it
// is in, so that two calls of one function (a compiler's copies of a call
// with timeout 0 and with a timeout) are one site.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kdelay {

// A call of a poll-family function: the address after it (what the call
// leaves on the stack) and the start of the function that makes it (from
// .eh_frame_hdr; the return address itself where it has none).
struct PollSite {
    uint64_t ret = 0;
    uint64_t function = 0;
};

// The poll-family calls in the code of the ELF file at path, at the
// file's addresses: direct calls of a PLT stub that jumps through one of
// those functions' GOT slots, calls through such a slot (-fno-plt), and
// calls of a static program's own copy. Tail calls leave no address of
// their own and are not found. Empty when path is no ELF file.
std::vector<PollSite> poll_call_sites(const std::string& path);

// An executable mapping of a file in a process: [lo, hi), at file offset.
struct CodeMapping {
    uint64_t lo = 0;
    uint64_t hi = 0;
    uint64_t offset = 0;
};

// The executable mappings of the file `program` in a /proc/PID/maps text,
// in its order; lines it cannot read are passed over.
std::vector<CodeMapping> code_mappings(std::istream& maps, const std::string& program);

// The same for process pid's program (/proc/PID/exe, read through the
// process's own view, in a container too), at its run-time addresses;
// empty when it is gone or cannot be read.
std::vector<PollSite> program_poll_sites(pid_t pid);

}  // namespace kdelay
