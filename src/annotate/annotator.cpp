#include "annotate/annotator.h"

#include <algorithm>
#include <set>

namespace kdelay {

void EntryAnnotator::prepare(const TraceHeader& header)
{
    header_ = &header;
    plans_.assign(header.tpoints.size(), Plan{});
    std::set<std::string> seen_names;  // trace.py finds a listed name's first tpoint only
    for (size_t t = 0; t < header.tpoints.size(); ++t) {
        const Tpoint& tp = header.tpoints[t];
        Plan& plan = plans_[t];
        const bool first_of_name = seen_names.insert(tp.name).second;
        std::set<std::string> names;
        for (const auto& a : tp.args)
            plan.unique_names = names.insert(a.name).second && plan.unique_names;
        for (const auto& object : objects_) {
            const std::string& key = object.spec().key;
            size_t pos = 0;
            while (pos < tp.args.size() && tp.args[pos].name != key)
                ++pos;
            const auto& listed_names = object.spec().tpoints;
            const bool listed = first_of_name &&
                                std::find(listed_names.begin(), listed_names.end(), tp.name) != listed_names.end();
            plan.annotated.push_back(listed || (object.spec().any_tpoint_with_key && pos < tp.args.size()));
            plan.key_pos.push_back(pos);
        }
    }
}

const std::vector<NamedArg>& EntryAnnotator::args(const TraceEntry& e)
{
    args_.clear();
    const Tpoint& tp = *e.tpoint;
    const Plan& plan = plans_[static_cast<size_t>(&tp - header_->tpoints.data())];
    const size_t n = std::min(e.arg_count, tp.args.size());
    for (size_t i = 0; i < n; ++i) {
        if (!plan.unique_names) {
            bool repeated = false;
            for (auto& a : args_)
                if (*a.name == tp.args[i].name) {
                    a.value = &e.args[i];
                    repeated = true;
                }
            if (repeated)
                continue;
        }
        args_.push_back({&tp.args[i].name, &e.args[i], 0, nullptr});
    }
    for (size_t i = 0; i < args_.size(); ++i)
        args_[i].type = tp.args[i].type;

    for (size_t o = 0; o < objects_.size(); ++o) {
        if (!plan.annotated[o] || plan.key_pos[o] >= n)
            continue;
        auto annotate = [&](NamedArg& a) {
            if (!a.value->is_string)
                if (const ObjectProperties* p = objects_[o].find(a.value->integer, e.tsc))
                    a.annotation = p;  // a later object overrides, as dict.update does
        };
        if (plan.unique_names) {
            annotate(args_[plan.key_pos[o]]);
            continue;
        }
        for (auto& a : args_)
            if (*a.name == objects_[o].spec().key)
                annotate(a);
    }
    return args_;
}

}  // namespace kdelay
