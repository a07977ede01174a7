#include "record/record_set.h"

#include <nlohmann/json.hpp>
#include <set>

#include "bpf/template.h"
#include "core/error.h"
#include <linux/types.h>

#include "record_abi.h"

namespace kdelay {

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
                arg.pos = a.at("pos").get<unsigned>();
                const std::string type = a.at("type").get<std::string>();
                if (!is_c_identifier(arg.name) || !names.insert(arg.name).second)
                    fail("bad or repeated argument name '" + arg.name + "' of " + probe.name);
                if (arg.pos >= KD_RECORD_MAX_ARGS)
                    fail("argument position " + std::to_string(arg.pos) + " of " + probe.name +
                         " is not below " + std::to_string(KD_RECORD_MAX_ARGS));
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
    } catch (const nlohmann::json::exception& e) {
        fail(e.what());
    }
    if (set.probes.empty())
        fail("no probes");
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
    }
    return merged;
}

}  // namespace kdelay
