#include "block/block_program.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "loader/program_source.h"
#include "core/error.h"

namespace kdelay {

void add_block_config(ConfigHeader& c, const std::optional<BlockLayout>& layout, uint32_t max_bios)
{
    const BlockLayout l = layout.value_or(BlockLayout{});
    c.flag("WITH_BLOCK", layout.has_value());
    c.offsets(block_offsets(), l);
    c.number("MAX_BIOS", max_bios);
    c.flag("WITH_BIO_QUEUE", l.bio.has_value());
    c.offsets(bio_offsets(), l.bio.value_or(BioLayout{}));
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
