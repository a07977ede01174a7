#include "record/record_set.h"

#include <nlohmann/json.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <set>

#include "loader/embedded.h"
#include "loader/template.h"
#include "core/error.h"
#include <linux/types.h>

#include "record_abi.h"

namespace kdelay {
namespace {

std::vector<std::string> string_list(const nlohmann::json& doc, const char* key)
{
    return doc.contains(key) ? doc.at(key).get<std::vector<std::string>>() : std::vector<std::string>{};
}

ObjectAnnotation parse_annotation(const nlohmann::json& a)
{
    ObjectAnnotation o;
    o.key = a.at("key").get<std::string>();
    if (a.contains("tsc"))
        o.tsc = a.at("tsc").get<std::string>();
    o.begin = a.at("begin").get<std::string>();
    o.end = a.at("end").get<std::string>();
    o.begin_properties = string_list(a, "begin_properties");
    if (a.contains("detail"))
        o.detail = a.at("detail").get<std::string>();
    o.detail_properties = string_list(a, "detail_properties");
    o.tpoints = string_list(a, "tpoints");
    if (a.contains("any_tpoint_with_key"))
        o.any_tpoint_with_key = a.at("any_tpoint_with_key").get<bool>();
    return o;
}

// Every probe and argument an annotation names must be in the set; key and
// tsc must be integers in each of its probes.
void check_annotation(const RecordSet& set, const ObjectAnnotation& o, const std::function<void(std::string)>& fail)
{
    auto arg_of = [&](const std::string& probe, const std::string& arg) -> const RecordArg* {
        const RecordProbe* p = set.find(probe);
        if (!p)
            fail("annotation of '" + o.key + "' names probe '" + probe + "', which the set lacks");
        for (const auto& a : p->args)
            if (a.name == arg)
                return &a;
        fail("annotation of '" + o.key + "': probe " + probe + " has no argument '" + arg + "'");
        return nullptr;
    };
    std::vector<std::string> probes = {o.begin, o.end};
    if (!o.detail.empty())
        probes.push_back(o.detail);
    if (o.begin == o.end)
        fail("annotation of '" + o.key + "': begin and end are the same probe");
    for (const auto& p : probes)
        for (const auto* name : {&o.key, &o.tsc})
            if (arg_of(p, *name)->is_string)
                fail("annotation of '" + o.key + "': " + p + "." + *name + " must be an int");
    for (const auto& name : o.begin_properties)
        arg_of(o.begin, name);
    for (const auto& name : o.detail_properties)
        arg_of(o.detail, name);
}

}  // namespace

const RecordProbe* RecordSet::find(const std::string& name) const
{
    for (const auto& p : probes)
        if (p.name == name)
            return &p;
    return nullptr;
}

RecordSet parse_record_set(const std::string& source, const std::string& text)
{
    auto fail = [&](const std::string& why) { throw Error(Exit::dataerr, source + ": " + why); };
    RecordSet set;
    try {
        const auto doc = nlohmann::json::parse(text);
        set.provider = doc.at("provider").get<std::string>();
        if (!is_c_identifier(set.provider))
            fail("bad provider '" + set.provider + "'");
        for (const auto& p : doc.at("usdt")) {
            RecordProbe probe;
            probe.name = p.at("probe").get<std::string>();
            if (!is_c_identifier(probe.name))
                fail("bad probe name '" + probe.name + "'");
            unsigned ints = 0, strs = 0;
            std::set<std::string> names;
            for (const auto& a : p.at("args")) {
                RecordArg arg;
                arg.name = a.at("name").get<std::string>();
                const nlohmann::json& pos = a.at("pos");
                const std::string type = a.at("type").get<std::string>();
                if (!is_c_identifier(arg.name) || !names.insert(arg.name).second)
                    fail("bad or repeated argument name '" + arg.name + "' of " + probe.name);
                // A whole number only: a float past unsigned's range does not convert.
                if (!pos.is_number_unsigned() || pos.get<uint64_t>() >= KD_RECORD_MAX_ARGS)
                    fail("argument position " + pos.dump() + " of " + probe.name + " is not a whole number below " +
                         std::to_string(KD_RECORD_MAX_ARGS));
                arg.pos = pos.get<unsigned>();
                if (type != "int" && type != "str")
                    fail("argument type must be int or str, not '" + type + "'");
                arg.is_string = type == "str";
                arg.slot = arg.is_string ? strs++ : ints++;
                if (strs > KD_RECORD_MAX_STRS)
                    fail(probe.name + " has more than " + std::to_string(KD_RECORD_MAX_STRS) + " string arguments");
                probe.args.push_back(arg);
            }
            set.probes.push_back(std::move(probe));
        }
        if (doc.contains("annotate"))
            for (const auto& a : doc.at("annotate"))
                set.annotations.push_back(parse_annotation(a));
    } catch (const nlohmann::json::exception& e) {
        fail(e.what());
    }
    if (set.probes.empty())
        fail("no probes");
    for (const auto& a : set.annotations)
        check_annotation(set, a, fail);
    return set;
}

RecordSet merge_record_sets(const std::vector<RecordSet>& sets)
{
    RecordSet merged;
    std::set<std::string> seen;
    for (const auto& s : sets) {
        if (!merged.provider.empty() && s.provider != merged.provider)
            throw Error(Exit::dataerr, "probe sets name different providers: " + merged.provider +
                                           " and " + s.provider);
        merged.provider = s.provider;
        for (const auto& p : s.probes)
            if (seen.insert(p.name).second)
                merged.probes.push_back(p);
        merged.annotations.insert(merged.annotations.end(), s.annotations.begin(), s.annotations.end());
    }
    return merged;
}

RecordSet load_record_sets(const std::vector<std::string>& files)
{
    std::vector<RecordSet> sets;
    for (const auto& path : files) {
        std::ifstream in(path);
        if (!in)
            throw Error(Exit::noinput, "cannot read probe set " + path + ": " + strerror(errno));
        std::stringstream text;
        text << in.rdbuf();
        sets.push_back(parse_record_set(path, text.str()));
    }
    if (sets.empty())
        sets.push_back(parse_record_set("spdk_nvmf.json", embedded_file("spdk_nvmf.json")));
    return merge_record_sets(sets);
}

}  // namespace kdelay
