// Template values for templates/block_io.bpf.c, shared by the programs that
// include it, and device naming for their reports.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "bpf/btf_offsets.h"

namespace kdelay {

class TemplateValues;

// Fills the block_abi and block_io partials and their offsets; without a
// layout (no block tracepoints) they are empty, for a {{#block_report}} section
// that is off.
void add_block_values(TemplateValues& values, const std::optional<BlockLayout>& layout,
                      uint32_t max_bios);

// MKDEV as the kernel side builds it: major << 20 | minor.
inline uint32_t make_dev(uint32_t major, uint32_t minor) { return major << 20 | minor; }

// The "when" features of probes/block.json this kernel needs.
std::set<std::string> block_features(const std::optional<BlockLayout>& layout);

// "vda" for 254:0, from /sys/dev/block/MAJ:MIN; "MAJ:MIN" when unknown.
std::string disk_name(uint32_t dev);

// The dev of a whole disk by name (vda). Throws Error(Exit::usage) for an
// unknown name or a partition.
uint32_t dev_of_disk(const std::string& name);

}  // namespace kdelay
