#include "bpf/program_source.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "bpf/embedded.h"
#include "bpf/template.h"
#include "core/error.h"
#include "target_abi.h"

namespace kdelay {

void ConfigHeader::define(const std::string& name, const std::string& value)
{
    if (!is_c_identifier(name))
        throw Error(Exit::software, "kd_config.h: '" + name + "' is not a C identifier");
    if (std::find(names_.begin(), names_.end(), name) != names_.end())
        throw Error(Exit::software, "kd_config.h: " + name + " is defined twice");
    names_.push_back(name);
    text_ += "#define " + name + " " + value + "\n";
}

void ConfigHeader::number(const std::string& name, uint64_t value)
{
    // Past INT64_MAX, C would read a plain literal with a warning.
    define(name, std::to_string(value) + (value > INT64_MAX ? "ULL" : ""));
}

void ConfigHeader::type(const std::string& name, const std::string& type)
{
    if (!is_c_identifier(type))
        throw Error(Exit::config, "'" + type + "' is not a valid C type name for " + name);
    define(name, type);
}

namespace {

// The file name of an #include "name" line; empty for any other line.
// Throws for #include <...>.
std::string included_name(const std::string& line)
{
    size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos || line[i] != '#')
        return "";
    i = line.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos || line.compare(i, 7, "include") != 0)
        return "";
    i = line.find_first_not_of(" \t", i + 7);
    if (i != std::string::npos && line[i] == '"') {
        const size_t end = line.find('"', i + 1);
        if (end != std::string::npos)
            return line.substr(i + 1, end - i - 1);
    }
    throw Error(Exit::software, "eBPF source: only #include \"file\" of bpf/ is allowed: " + line);
}

struct Assembly {
    const ConfigHeader& config;
    const SourceFiles& file_text;
    std::set<std::string> seen;
    std::string out;
};

void inline_file(const std::string& name, Assembly& a)
{
    if (!a.seen.insert(name).second)
        return;
    const std::string text = name == kConfigHeaderName ? a.config.text() : a.file_text(name);
    a.out += "/* ---- " + name + " ---- */\n";
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        const std::string included = included_name(line);
        if (included.empty())
            a.out += line + "\n";
        else
            inline_file(included, a);
    }
}

}  // namespace

std::string assemble_program(const std::vector<std::string>& parts, const ConfigHeader& config,
                             const SourceFiles& file_text)
{
    Assembly a{config, file_text, {}, {}};
    inline_file(kConfigHeaderName, a);
    for (const std::string& part : parts)
        inline_file(part, a);
    return a.out;
}

std::string assemble_program(const std::vector<std::string>& parts, const ConfigHeader& config)
{
    return assemble_program(parts, config, [](const std::string& name) { return embedded_file(name); });
}

uint64_t cgroup_name_hash(const std::string& name)
{
    uint64_t hash = KD_FNV1A_OFFSET;
    for (const unsigned char c : name) {
        hash ^= c;
        hash *= KD_FNV1A_PRIME;
    }
    return hash;
}

std::optional<CgroupMatch> match_cgroup(const std::optional<CgroupTarget>& cgroup, const KernelBtf& btf)
{
    if (!cgroup)
        return std::nullopt;
    return CgroupMatch{*cgroup, read_cgroup_layout(btf, cgroup->controller)};
}

void add_targets(ConfigHeader& config, const std::vector<pid_t>& tgids, const std::optional<CgroupMatch>& cgroup)
{
    if (tgids.size() > KD_MAX_TARGETS)
        throw Error(Exit::software, "more target processes than the kernel side compares");
    if (cgroup && !tgids.empty())
        throw Error(Exit::software, "a target is processes or a cgroup, not both");
    config.number("TARGET_TGIDS", tgids.size());
    for (size_t i = 0; i < tgids.size(); ++i)
        config.number("TARGET_TGID_" + std::to_string(i), static_cast<uint64_t>(tgids[i]));
    config.number("TARGET_CGROUP_ID", cgroup ? cgroup->target.id : 0);
    if (!cgroup)
        return;
    const CgroupLayout& c = cgroup->layout;
    config.number("TASK_CGROUPS_OFF", c.task_cgroups.offset);
    config.number("CSS_SET_DFL_CGRP_OFF", c.css_set_dfl_cgrp.offset);
    config.number("CSS_SET_SUBSYS_OFF", c.css_set_subsys.offset);
    config.number("CSS_CGROUP_OFF", c.css_cgroup.offset);
    config.number("CGROUP_KN_OFF", c.cgroup_kn.offset);
    config.number("CGROUP_PARENT_OFF", c.cgroup_parent.offset);
    config.number("KERNFS_ID_OFF", c.kernfs_id.offset);
    config.number("KERNFS_NAME_OFF", c.kernfs_name.offset);
    const std::string& name = cgroup->target.name;
    const bool follow = cgroup->target.parent_id && !name.empty() && name.size() < KD_CGROUP_NAME_MAX;
    config.number("TARGET_CGROUP_PARENT_ID", follow ? cgroup->target.parent_id : 0);
    config.number("TARGET_CGROUP_NAME_LEN", follow ? name.size() : 0);
    config.number("TARGET_CGROUP_NAME_HASH", follow ? cgroup_name_hash(name) : 0);
    config.flag("TARGET_CGROUP_V1", c.subsys >= 0);
    config.number("TARGET_CGROUP_SUBSYS", c.subsys >= 0 ? static_cast<uint64_t>(c.subsys) : 0);
}

}  // namespace kdelay
