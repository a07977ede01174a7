#include "sys/elf_sections.h"

namespace kdelay {

// Each start is a 4-byte signed offset from the section.
std::vector<uint64_t> function_starts(::Elf* elf)
{
    std::vector<uint64_t> starts;
    for_each_section(elf, [&](const GElf_Shdr& sh, std::string_view name, Elf_Data* data) {
        if (name != ".eh_frame_hdr" || !data || !data->d_buf || data->d_size < 12)
            return;
        const auto* b = static_cast<const unsigned char*>(data->d_buf);
        // version 1; eh_frame_ptr: sdata4 pc-relative; fde_count: udata4;
        // table: sdata4 relative to the section.
        if (b[0] != 1 || b[1] != 0x1b || b[2] != 0x03 || b[3] != 0x3b)
            return;
        uint32_t count;
        std::memcpy(&count, b + 8, sizeof(count));
        for (uint64_t i = 0; i < count && 12 + i * 8 + 4 <= data->d_size; ++i)
            starts.push_back(sh.sh_addr + static_cast<uint64_t>(rel32(b + 12 + i * 8)));
    });
    sort_unique(starts);
    return starts;
}

uint64_t function_of(const std::vector<uint64_t>& starts, uint64_t a)
{
    const auto after = std::upper_bound(starts.begin(), starts.end(), a);
    return after == starts.begin() ? a : *(after - 1);
}

}  // namespace kdelay
