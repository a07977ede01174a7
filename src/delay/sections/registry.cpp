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

namespace {

// The sections with the counters handed out to them, and how many map-full
// counters that makes.
struct Registry {
    std::vector<RegisteredSection> sections;
    int map_full_count = KD_MAP_CORE_COUNT;
};

const Registry& registry()
{
    static const Registry r = [] {
        Registry reg;
#define KDELAY_REGISTER_SECTION(name) reg.sections.push_back(RegisteredSection{&name##_section(), {}, -1});
        KDELAY_SECTIONS(KDELAY_REGISTER_SECTION)
#undef KDELAY_REGISTER_SECTION
        int hist = KD_HIST_CORE_KINDS;
        for (RegisteredSection& s : reg.sections) {
            for (const SectionMap& m : s.def->maps)
                s.full.push_back(m.full_macro ? reg.map_full_count++ : -1);
            if (s.def->hist_macro)
                s.hist_kind = hist++;
        }
        return reg;
    }();
    return r;
}

}  // namespace

const std::vector<RegisteredSection>& registered_sections() { return registry().sections; }

int map_full_count() { return registry().map_full_count; }

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

std::set<std::string> probes_on(const DelayFeatures& f, bool stall)
{
    std::set<std::string> on = switches_on(f);
    if (f.timeline)
        on.insert("timeline");
    if (stall)
        on.insert("stall");
    return on;
}

}  // namespace kdelay
