// The config of bpf/block/block_io.bpf.h, shared by the programs that
// include it, and device naming for their reports.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "loader/btf_offsets.h"

namespace kdelay {

class ConfigHeader;

// WITH_BLOCK and block_io.bpf.h's offsets; without a layout (no block
// tracepoints, or a layout kdelay does not read) WITH_BLOCK is 0.
void add_block_config(ConfigHeader& config, const std::optional<BlockLayout>& layout, uint32_t max_bios);

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
