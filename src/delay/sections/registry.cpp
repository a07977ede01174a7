#include "delay/section.h"
#include "delay/sections/row_names.h"
#include "delay_abi.h"

namespace kdelay {
namespace {

constexpr const char* kLocksHelp =
    "Add each thread's waits for contended kernel locks (mutexes, rwsems, spinlocks) by\n"
    "kind of lock (needs the lock:contention_begin tracepoint, Linux 5.19 or later)";
constexpr const char* kReclaimHelp =
    "Add the time each thread spent reclaiming memory itself before an allocation could\n"
    "go on: direct reclaim (the machine is short of memory) and memory cgroup reclaim";

// The plug-in sections, in report order; a new one is a row here. Each
// row: its switch; its maps, the rows' map ((thread, id) -> kd_stat) and
// the one that holds what each thread is in; its table's title, the JSON
// name of a row's id and its namer; its histogram kind; and its kd_config.h
// names.
const ThreadSection kSections[] = {
    {{"locks", "--locks", kLocksHelp, "lock:contention_begin", "Linux 5.19"},
     {{"locks", DelayMap::Reset::clear, "KD_MAP_LOCKS", "lock contention", 4}, {"lock_waits"}},
     "[LOCK CONTENTION STATISTICS]", "flags", lock_kind, "KD_HIST_LOCK", "lock", KD_CONFIG_NAMES(KD_LOCKS_CONFIG)},
    {{"reclaim", "--reclaim", kReclaimHelp, "vmscan:mm_vmscan_memcg_reclaim_begin", "Linux 2.6.36, with CONFIG_MEMCG"},
     {{"reclaim", DelayMap::Reset::clear, "KD_MAP_RECLAIM", "memory reclaim", 2}, {"reclaim_runs"}},
     "[MEMORY RECLAIM STATISTICS]", "kind", reclaim_kind, "KD_HIST_RECLAIM", "reclaim",
     KD_CONFIG_NAMES(KD_RECLAIM_CONFIG)},
};

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
        for (const ThreadSection& s : kSections)
            reg.sections.push_back(RegisteredSection{&s, {}, -1});
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
    if (stall && f.wait_stacks && f.stack_copy_bytes)
        on.insert("wait_copy");
    if (!stall && f.profile_hz)
        on.insert("window_profile");
    return on;
}

}  // namespace kdelay
