#include "loader/config_names.h"

namespace kdelay {

ConfigNames operator+(ConfigNames a, const ConfigNames& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// One offsets list as a table of its layout's members.
#define KD_LAYOUT_OFFSET_ENTRY(name, member) {#name, &L::member},
#define KD_LAYOUT_OFFSETS(function, Layout, list)           \
    const LayoutOffsets<Layout>& function()                 \
    {                                                       \
        using L = Layout;                                   \
        static const LayoutOffsets<L> t{list(KD_LAYOUT_OFFSET_ENTRY)}; \
        return t;                                           \
    }

KD_LAYOUT_OFFSETS(task_offsets, KernelLayout, KD_TASK_OFFSETS)
KD_LAYOUT_OFFSETS(cgroup_offsets, CgroupLayout, KD_CGROUP_OFFSETS)
KD_LAYOUT_OFFSETS(block_offsets, BlockLayout, KD_BLOCK_OFFSETS)
KD_LAYOUT_OFFSETS(bio_offsets, BioLayout, KD_BIO_OFFSETS)
KD_LAYOUT_OFFSETS(pidns_offsets, PidNsLayout, KD_PIDNS_OFFSETS)

#undef KD_LAYOUT_OFFSETS
#undef KD_LAYOUT_OFFSET_ENTRY

ConfigNames target_config_names()
{
    return KD_CONFIG_NAMES(KD_TARGET_CONFIG) + KD_OFFSET_NAMES(KD_CGROUP_OFFSETS);
}

ConfigNames block_config_names()
{
    return KD_CONFIG_NAMES(KD_BLOCK_CONFIG) + KD_OFFSET_NAMES(KD_BLOCK_OFFSETS) + KD_OFFSET_NAMES(KD_BIO_OFFSETS);
}

ConfigNames delay_config_names()
{
    return target_config_names() + block_config_names() + KD_OFFSET_NAMES(KD_TASK_OFFSETS) +
           KD_CONFIG_NAMES(KD_DELAY_CONFIG);
}

ConfigNames biosnoop_config_names()
{
    return target_config_names() + block_config_names() + KD_CONFIG_NAMES(KD_BIOSNOOP_CONFIG);
}

ConfigNames pidns_config_names()
{
    return target_config_names() + KD_OFFSET_NAMES(KD_PIDNS_OFFSETS) + KD_CONFIG_NAMES(KD_PIDNS_CONFIG);
}

ConfigNames record_config_names() { return KD_CONFIG_NAMES(KD_RECORD_CONFIG); }

}  // namespace kdelay
