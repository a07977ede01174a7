#include "loader/program_source.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "loader/embedded.h"
#include "loader/template.h"
#include "core/error.h"
#include "target_abi.h"

namespace kdelay {

ConfigHeader::ConfigHeader(ConfigNames declared) : declared_(std::move(declared)) {}

void ConfigHeader::define(const std::string& name, ConfigKind kind, const std::string& value)
{
    if (!is_c_identifier(name))
        throw Error(Exit::software, "kd_config.h: '" + name + "' is not a C identifier");
    // NAME_<i> is an entry of the INDEXED name NAME.
    const size_t digits = name.find_last_not_of("0123456789");
    const bool entry = kind == ConfigKind::NUMBER && digits + 1 < name.size() && name[digits] == '_';
    const auto declared = std::find_if(declared_.begin(), declared_.end(), [&](const ConfigName& d) {
        return d.kind == ConfigKind::INDEXED ? entry && name.compare(0, digits, d.name) == 0 && d.name.size() == digits
                                             : d.name == name;
    });
    if (declared == declared_.end())
        throw Error(Exit::software, "kd_config.h: " + name + " is not declared in kd_config_names.h for this program");
    if (declared->kind != kind && declared->kind != ConfigKind::INDEXED)
        throw Error(Exit::software, "kd_config.h: " + name + " is declared of another kind");
    if (std::find(names_.begin(), names_.end(), name) != names_.end())
        throw Error(Exit::software, "kd_config.h: " + name + " is defined twice");
    names_.push_back(name);
    text_ += "#define " + name + " " + value + "\n";
}

void ConfigHeader::number(const std::string& name, uint64_t value)
{
    // Past INT64_MAX, C would read a plain literal with a warning.
    define(name, ConfigKind::NUMBER, std::to_string(value) + (value > INT64_MAX ? "ULL" : ""));
}

void ConfigHeader::flag(const std::string& name, bool on) { define(name, ConfigKind::FLAG, on ? "1" : "0"); }

void ConfigHeader::indexed(const std::string& name, const std::vector<uint64_t>& values, size_t places)
{
    if (values.size() > places)
        throw Error(Exit::software, "more values of " + name + " than the kernel side compares");
    for (size_t i = 0; i < places; ++i)
        number(name + "_" + std::to_string(i), i < values.size() ? values[i] : KD_NO_ID);
}

void ConfigHeader::type(const std::string& name, const std::string& type)
{
    if (!is_c_identifier(type))
        throw Error(Exit::config, "'" + type + "' is not a valid C type name for " + name);
    define(name, ConfigKind::TYPE, type);
}

void ConfigHeader::check_complete() const
{
    std::string missing;
    for (const ConfigName& d : declared_)
        if (d.kind != ConfigKind::INDEXED && std::find(names_.begin(), names_.end(), d.name) == names_.end() &&
            missing.find(" " + d.name + " ") == std::string::npos)
            missing += " " + d.name + " ";
    if (!missing.empty())
        throw Error(Exit::software, "kd_config.h: declared but not defined:" + missing.substr(0, missing.size() - 1));
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
    config.check_complete();
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
    config.indexed("TARGET_TGID", std::vector<uint64_t>(tgids.begin(), tgids.end()), KD_MAX_TARGETS);
    config.number("TARGET_CGROUP_ID", cgroup ? cgroup->target.id : 0);
    // Without a cgroup, zeros: the kernel side reads them under
    // #if TARGET_CGROUP_ID only, but requires every name defined.
    config.offsets(cgroup_offsets(), cgroup ? cgroup->layout : CgroupLayout{});
    const std::string name = cgroup ? cgroup->target.name : "";
    const bool follow = cgroup && cgroup->target.parent_id && !name.empty() && name.size() < KD_CGROUP_NAME_MAX;
    config.number("TARGET_CGROUP_PARENT_ID", follow ? cgroup->target.parent_id : 0);
    config.number("TARGET_CGROUP_NAME_LEN", follow ? name.size() : 0);
    config.number("TARGET_CGROUP_NAME_HASH", follow ? cgroup_name_hash(name) : 0);
    const int subsys = cgroup ? cgroup->layout.subsys : -1;
    config.flag("TARGET_CGROUP_V1", subsys >= 0);
    config.number("TARGET_CGROUP_SUBSYS", subsys >= 0 ? static_cast<uint64_t>(subsys) : 0);
}

}  // namespace kdelay
