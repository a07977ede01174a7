// Reading an ELF file's sections with libelf: the steps kdelay's readers
// of a program's code share (stall/poll_sites, sys/dwarf_unwind).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <gelf.h>
#include <libelf.h>
#include <string_view>
#include <vector>

namespace kdelay {

// Calls each(header, name, data) for each section of elf ("" without a
// name, null data without any).
template <class Each>
void for_each_section(::Elf* elf, Each each)
{
    size_t shstrndx = 0;
    const bool named = elf_getshdrstrndx(elf, &shstrndx) == 0;
    Elf_Scn* scn = nullptr;
    while ((scn = elf_nextscn(elf, scn)) != nullptr) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        const char* name = named ? elf_strptr(elf, shstrndx, sh.sh_name) : nullptr;
        each(sh, std::string_view(name ? name : ""), elf_getdata(scn, nullptr));
    }
}

// A 4-byte signed little-endian value.
inline int64_t rel32(const unsigned char* b)
{
    int32_t v;
    std::memcpy(&v, b, sizeof(v));
    return v;
}

inline void sort_unique(std::vector<uint64_t>& v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The start of each function with call frame information, sorted: the
// binary search table of .eh_frame_hdr, as GNU ld and lld write it.
std::vector<uint64_t> function_starts(::Elf* elf);

// The start of the function holding address a; a itself without one.
uint64_t function_of(const std::vector<uint64_t>& starts, uint64_t a);

}  // namespace kdelay
