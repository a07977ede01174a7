// kd_config.h's names as the C++ side reads them: the lists of
// bpf/kd_config_names.h, declared once for both sides, as tables.
#pragma once

#include <string>
#include <vector>

#include "loader/btf_offsets.h"
#include "kd_config_names.h"

namespace kdelay {

// Upper case, as the lists spell the kinds.
enum class ConfigKind { NUMBER, FLAG, TYPE, INDEXED };

struct ConfigName {
    std::string name;
    ConfigKind kind;
};

// The names a program's kd_config.h defines: each must be defined, and no other.
using ConfigNames = std::vector<ConfigName>;

ConfigNames operator+(ConfigNames a, const ConfigNames& b);

#define KD_CONFIG_NAME_ENTRY(name, kind) ::kdelay::ConfigName{#name, ::kdelay::ConfigKind::kind},
#define KD_OFFSET_NAME_ENTRY(name, member) ::kdelay::ConfigName{#name, ::kdelay::ConfigKind::NUMBER},
// The names of a config list or an offsets list of bpf/kd_config_names.h.
#define KD_CONFIG_NAMES(list) ::kdelay::ConfigNames{list(KD_CONFIG_NAME_ENTRY)}
#define KD_OFFSET_NAMES(list) ::kdelay::ConfigNames{list(KD_OFFSET_NAME_ENTRY)}

// One entry of an offsets list: its name and the layout's member.
template <class Layout>
struct LayoutOffset {
    const char* name;
    MemberLayout Layout::*member;
};
template <class Layout>
using LayoutOffsets = std::vector<LayoutOffset<Layout>>;

// The offsets lists, each with its layout.
const LayoutOffsets<KernelLayout>& task_offsets();      // KD_TASK_OFFSETS
const LayoutOffsets<CgroupLayout>& cgroup_offsets();    // KD_CGROUP_OFFSETS
const LayoutOffsets<BlockLayout>& block_offsets();      // KD_BLOCK_OFFSETS
const LayoutOffsets<BioLayout>& bio_offsets();          // KD_BIO_OFFSETS
const LayoutOffsets<PidNsLayout>& pidns_offsets();      // KD_PIDNS_OFFSETS

// What each program declares, its parts' lists together.
ConfigNames target_config_names();    // targets.bpf.h
ConfigNames block_config_names();     // block/block_io.bpf.h
ConfigNames delay_config_names();     // delay.bpf.c, without its sections
ConfigNames biosnoop_config_names();  // biosnoop.bpf.c
ConfigNames pidns_config_names();     // pidns.bpf.c
ConfigNames record_config_names();    // record.bpf.c

}  // namespace kdelay
