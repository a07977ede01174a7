#include "loader/probe_set.h"

#include <nlohmann/json.hpp>

#include "loader/embedded.h"
#include "loader/template.h"
#include "core/error.h"

namespace kdelay {

std::vector<ProbeSpec> parse_probe_set(const std::string& name, const std::string& json)
{
    std::vector<ProbeSpec> probes;
    try {
        const auto doc = nlohmann::json::parse(json);
        for (const auto& p : doc.at("probes")) {
            ProbeSpec spec;
            const std::string type = p.at("type").get<std::string>();
            if (type == "raw_tracepoint")
                spec.type = ProbeSpec::Type::raw_tracepoint;
            else if (type == "tp_btf")
                spec.type = ProbeSpec::Type::btf_tracepoint;
            else if (type == "tracepoint")
                spec.type = ProbeSpec::Type::tracepoint;
            else if (type == "kprobe")
                spec.type = ProbeSpec::Type::kprobe;
            else if (type == "kretprobe")
                spec.type = ProbeSpec::Type::kretprobe;
            else
                throw Error(Exit::software, name + ": unknown probe type '" + type + "'");
            spec.target = p.at("target").get<std::string>();
            spec.function = p.at("function").get<std::string>();
            spec.fallback = p.value("fallback", "");
            spec.when = p.value("when", "");
            if (!is_c_identifier(spec.function))
                throw Error(Exit::software, name + ": bad function name '" + spec.function + "'");
            // The loader finds a tp_btf program's tracepoint by its name.
            const std::string own = kBtfTracepointPrefix + spec.target;
            if (spec.type == ProbeSpec::Type::btf_tracepoint && spec.function != own &&
                spec.function.rfind(own + kBtfTracepointStep, 0) != 0)
                throw Error(Exit::software, name + ": a tp_btf function is named " + own + " or " + own +
                                                kBtfTracepointStep + "STEP");
            probes.push_back(std::move(spec));
        }
    } catch (const nlohmann::json::exception& e) {
        throw Error(Exit::software, name + ": " + e.what());
    }
    return probes;
}

std::vector<ProbeSpec> load_probe_set(const std::string& name, const std::set<std::string>& features)
{
    std::vector<ProbeSpec> probes;
    for (auto& p : parse_probe_set(name + ".json", embedded_file(name + ".json")))
        if (p.when.empty() || features.count(p.when))
            probes.push_back(std::move(p));
    return probes;
}

}  // namespace kdelay
