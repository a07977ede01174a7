#include "block/block_program.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "bpf/embedded.h"
#include "bpf/template.h"
#include "core/error.h"

namespace kdelay {

void add_block_values(TemplateValues& v, const std::optional<BlockLayout>& layout,
                      uint32_t max_bios)
{
    const BlockLayout l = layout.value_or(BlockLayout{});
    v.partial("block_abi", layout ? embedded_file("block_abi.h") : "");
    v.partial("block_io", layout ? embedded_file("block_io.bpf.c") : "");
    v.number("rq_q_off", l.rq_q.offset);
    v.number("rq_sector_off", l.rq_sector.offset);
    v.number("rq_flags_off", l.rq_flags.offset);
    v.number("queue_disk_off", l.queue_disk.offset);
    v.number("disk_major_off", l.disk_major.offset);
    v.number("disk_minor_off", l.disk_minor.offset);
    v.number("max_bios", max_bios);
    const BioLayout b = l.bio.value_or(BioLayout{});
    v.section("bio_queue", l.bio.has_value());
    v.number("bio_bdev_off", b.bio_bdev.offset);
    v.number("bio_sector_off", b.bio_sector.offset);
    v.number("bdev_disk_off", b.bdev_disk.offset);
}

std::set<std::string> block_features(const std::optional<BlockLayout>& layout)
{
    if (layout && layout->bio)
        return {"bio_queue"};
    return {};
}

std::string disk_name(uint32_t dev)
{
    static std::map<uint32_t, std::string> cache;
    auto [it, fresh] = cache.try_emplace(dev);
    if (fresh) {
        const std::string id = std::to_string(dev >> 20) + ":" + std::to_string(dev & 0xfffff);
        std::error_code ec;
        const auto target = std::filesystem::read_symlink("/sys/dev/block/" + id, ec);
        it->second = ec ? id : target.filename().string();
    }
    return it->second;
}

uint32_t dev_of_disk(const std::string& name)
{
    const std::string dir = "/sys/class/block/" + name;
    if (name.empty() || name.find('/') != std::string::npos || name[0] == '.' ||
        !std::filesystem::exists(dir + "/dev"))
        throw Error(Exit::usage, "no disk named '" + name + "' in /sys/class/block");
    if (std::filesystem::exists(dir + "/partition"))
        throw Error(Exit::usage, "'" + name + "' is a partition; name its disk instead");
    std::ifstream in(dir + "/dev");
    uint32_t major = 0, minor = 0;
    char colon = 0;
    if (!(in >> major >> colon >> minor) || colon != ':')
        throw Error(Exit::usage, "cannot read " + dir + "/dev");
    return make_dev(major, minor);
}

}  // namespace kdelay
