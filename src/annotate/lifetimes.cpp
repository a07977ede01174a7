#include "annotate/lifetimes.h"

#include <algorithm>
#include <fmt/format.h>

namespace kdelay {
namespace {

size_t arg_index(const RecordProbe& probe, const std::string& name)
{
    for (size_t i = 0; i < probe.args.size(); ++i)
        if (probe.args[i].name == name)
            return i;
    return probe.args.size();  // parse_record_set checked that annotations name real args
}

void set_property(ObjectProperties& p, const std::string& name, const RecordValue& v)
{
    for (auto& item : p.items)
        if (item.first == name) {
            item.second = v;  // a dict update keeps the first position
            return;
        }
    p.items.emplace_back(name, v);
}

std::string render(const std::string& key, const ObjectProperties& p)
{
    std::string s = key + "(";
    for (size_t i = 0; i < p.items.size(); ++i) {
        const auto& [name, v] = p.items[i];
        s += (i ? ", " : "") + name + "=";
        s += v.is_string ? v.text : fmt::format_int(v.integer).str();
    }
    return s + ")";
}

}  // namespace

LifetimeIndex::LifetimeIndex(const ObjectAnnotation& spec, const RecordSet& set) : spec_(spec)
{
    probes_[0] = set.find(spec.begin);
    probes_[1] = set.find(spec.end);
    probes_[2] = spec.detail.empty() ? nullptr : set.find(spec.detail);
    for (int role = 0; role < 3; ++role) {
        if (!probes_[role])
            continue;
        tsc_arg_[role] = arg_index(*probes_[role], spec.tsc);
        key_arg_[role] = arg_index(*probes_[role], spec.key);
        const auto& names = role == 0 ? spec.begin_properties : role == 2 ? spec.detail_properties
                                                                          : std::vector<std::string>{};
        for (const auto& name : names)
            property_args_[role].push_back(arg_index(*probes_[role], name));
    }
}

LifetimeIndex::LifetimeIndex(const ObjectAnnotation& spec, const RecordSet& set,
                             const std::vector<ProbeRecord>& records)
    : LifetimeIndex(spec, set)
{
    for (const auto& r : records)
        add(r);
    finish();
}

void LifetimeIndex::add(const ProbeRecord& r)
{
    for (int role = 0; role < 3; ++role) {
        if (r.probe != probes_[role])
            continue;
        hits_.push_back({r.values[tsc_arg_[role]].integer, r.values[key_arg_[role]].integer,
                         static_cast<Role>(role), static_cast<uint32_t>(values_.size())});
        for (size_t arg : property_args_[role])
            values_.push_back(r.values[arg]);
    }
}

void LifetimeIndex::finish()
{
    auto& hits = hits_;
    // trace.py sorts by TSC (stably); grouping by key after that keeps each
    // key's records in TSC order.
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.tsc < b.tsc; });
    std::stable_sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.key < b.key; });

    auto set_properties = [&](ObjectProperties& p, const Hit& h, const std::vector<std::string>& names) {
        for (size_t i = 0; i < names.size(); ++i)
            set_property(p, names[i], values_[h.values + i]);
    };
    std::vector<size_t> ends, details;
    for (size_t first = 0; first < hits.size();) {
        size_t last = first;
        while (last < hits.size() && hits[last].key == hits[first].key)
            ++last;
        ends.clear();
        details.clear();
        for (size_t i = first; i < last; ++i) {
            if (hits[i].role == Role::end)
                ends.push_back(i);
            else if (hits[i].role == Role::detail)
                details.push_back(i);
        }
        const auto group_start = static_cast<uint32_t>(lifetimes_.size());
        for (size_t i = first; i < last; ++i) {
            if (hits[i].role != Role::begin)
                continue;
            const auto end = std::upper_bound(ends.begin(), ends.end(), i);
            const size_t limit = end == ends.end() ? last - 1 : *end;  // inclusive
            ObjectProperties p;
            set_property(p, "ptr", RecordValue{true, 0, fmt::format("0x{:x}", hits[i].key)});
            set_properties(p, hits[i], spec_.begin_properties);
            const auto after = std::upper_bound(details.begin(), details.end(), limit);
            if (after != details.begin() && *(after - 1) >= i)
                set_properties(p, hits[*(after - 1)], spec_.detail_properties);
            p.text = render(spec_.key, p);
            lifetimes_.push_back({hits[i].tsc, end == ends.end() ? UINT64_MAX : hits[*end].tsc,
                                  static_cast<uint32_t>(properties_.size())});
            properties_.push_back(std::move(p));
        }
        const auto count = static_cast<uint32_t>(lifetimes_.size()) - group_start;
        if (count)
            by_key_[hits[first].key] = {group_start, count};
        first = last;
    }
    hits_ = {};
    values_ = {};
}

const ObjectProperties* LifetimeIndex::find(uint64_t key, uint64_t tsc) const
{
    const auto it = by_key_.find(key);
    if (it == by_key_.end())
        return nullptr;
    // Within a key, begins and ends both ascend in begin order, so the first
    // lifetime ending at or after tsc is the only candidate.
    const auto first = lifetimes_.begin() + it->second.first;
    const auto last = first + it->second.second;
    const auto l = std::lower_bound(first, last, tsc, [](const Lifetime& l, uint64_t t) { return l.end < t; });
    if (l == last || l->begin > tsc)
        return nullptr;
    return &properties_[l->properties];
}

}  // namespace kdelay
