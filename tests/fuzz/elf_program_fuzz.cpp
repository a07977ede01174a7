// The parsers of a target's own program, which any user can write and
// kdelay reads as root: its ELF sections, PLT and GOT (the poll family's
// call sites of --stall), its .eh_frame_hdr (a stripped frame's function
// start), and the lines of its maps that name it.
#include <gelf.h>
#include <libelf.h>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "stall/poll_sites.h"
#include "sys/elf_sections.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    // As a file: poll_call_sites opens its program by path.
    const int fd = memfd_create("kdelay-fuzz-elf", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == static_cast<ssize_t>(size))
        (void)kdelay::poll_call_sites("/proc/self/fd/" + std::to_string(fd));
    close(fd);
    // In memory: the function starts of .eh_frame_hdr.
    elf_version(EV_CURRENT);
    std::string copy = kdfuzz::text(data, size);
    if (::Elf* elf = elf_memory(copy.data(), copy.size())) {
        const std::vector<uint64_t> starts = kdelay::function_starts(elf);
        (void)kdelay::function_of(starts, starts.empty() ? 0 : starts.back() + 1);
        elf_end(elf);
    }
    // As maps lines that name a program.
    std::istringstream maps(copy);
    (void)kdelay::code_mappings(maps, "/usr/sbin/ovs-vswitchd");
    return 0;
}
