#include <algorithm>

#include "delay/section.h"
#include "delay_abi.h"

// The plug-in sections, in report order: a new one is a line here.
#define KDELAY_SECTIONS(X) \
    X(locks)                \
    X(reclaim)

namespace kdelay {

#define KDELAY_DECLARE_SECTION(name) const ThreadSection& name##_section();
KDELAY_SECTIONS(KDELAY_DECLARE_SECTION)
#undef KDELAY_DECLARE_SECTION

const std::vector<RegisteredSection>& registered_sections()
{
    static const std::vector<RegisteredSection> all = [] {
        std::vector<RegisteredSection> v;
#define KDELAY_REGISTER_SECTION(name) v.push_back(RegisteredSection{&name##_section(), {}, -1});
        KDELAY_SECTIONS(KDELAY_REGISTER_SECTION)
#undef KDELAY_REGISTER_SECTION
        int full = KD_MAP_CORE_COUNT, hist = KD_HIST_CORE_KINDS;
        for (RegisteredSection& s : v) {
            for (const SectionMap& m : s.def->maps)
                s.full.push_back(m.full_macro ? full++ : -1);
            if (s.def->hist_macro)
                s.hist_kind = hist++;
        }
        return v;
    }();
    return all;
}

int map_full_count()
{
    int n = KD_MAP_CORE_COUNT;
    for (const RegisteredSection& s : registered_sections())
        n += static_cast<int>(std::count_if(s.full.begin(), s.full.end(), [](int i) { return i >= 0; }));
    return n;
}

const std::vector<DelayMap>& sample_maps()
{
    static const std::vector<DelayMap> all = [] {
        std::vector<DelayMap> v(kCoreMaps.begin(), kCoreMaps.end());
        for (const RegisteredSection& s : registered_sections())
            for (size_t i = 0; i < s.def->maps.size(); ++i) {
                const SectionMap& m = s.def->maps[i];
                v.push_back(DelayMap{m.name, m.reset, nullptr, s.full[i], m.what, s.def->on.name});
            }
        return v;
    }();
    return all;
}

std::vector<const FeatureSwitch*> feature_switches()
{
    std::vector<const FeatureSwitch*> all;
    for (const FeatureSwitch& s : kCoreSwitches)
        all.push_back(&s);
    for (const RegisteredSection& s : registered_sections())
        all.push_back(&s.def->on);
    return all;
}

std::set<std::string> switches_on(const DelayFeatures& f)
{
    std::set<std::string> on;
    for (const FeatureSwitch* s : feature_switches())
        if (s->is_on(f))
            on.insert(s->name);
    return on;
}

}  // namespace kdelay
