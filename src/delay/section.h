// A per-thread report section that plugs in as one unit, as a libbpf-tools
// tool is a kernel side and a user side:
//   bpf/delay/sections/NAME.bpf.c  its handlers and maps, on with WITH_NAME;
//   src/delay/sections/NAME.cpp    how its rows' ids are named;
//   a row of kSections (sections/registry.cpp): its ThreadSection, the
//   switch, maps, report and histogram kind.
// Its rows are named statistics per thread: the kernel side sums a kd_stat
// per struct kd_row_key (thread, id) in its first map. From this
// description the option is declared, the part turned on and the probes
// attached when the switch is on, the maps sized, read, reset and checked
// for overflow, and the rows printed as one table in text and JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loader/config_names.h"
#include "delay/features.h"
#include "delay/maps.h"

namespace kdelay {

struct SectionMap {
    const char* name;
    DelayMap::Reset reset = DelayMap::Reset::clear;
    // The macro its part counts this map's overflows under (note_full()),
    // when it can fill up, and how the warning names the map.
    const char* full_macro = nullptr;
    const char* what = "";
    // Entries per target thread; 0: one per thread. kd_config.h has the
    // size as MAX_NAME.
    uint32_t per_thread = 0;
};

struct ThreadSection {
    // Its flag. The name also names its part (and WITH_NAME) and the JSON
    // key, and is the "when" of its probes in probes/delay.json.
    FeatureSwitch on;
    std::vector<SectionMap> maps;  // the first holds the rows
    const char* title;             // of the text table, [LIKE THIS]
    const char* id_key;            // the JSON name of a row's id
    std::string (*row_name)(uint32_t id);
    // The macro its part gives hist_add() as the kind, when the section
    // has a --histogram kind, and the kind's name in the report.
    const char* hist_macro = nullptr;
    const char* hist_name = nullptr;
    // The names its part reads from kd_config.h: its list in
    // bpf/kd_config_names.h (KD_CONFIG_NAMES(KD_NAME_CONFIG)).
    ConfigNames config;
};

// A registered section with the counters the registry gave it: map-full
// indices after the core's KD_MAP_*, a histogram kind after KD_HIST_*.
struct RegisteredSection {
    const ThreadSection* def;
    std::vector<int> full;  // per map; -1 when it cannot fill
    int hist_kind = -1;
};

// Every plug-in section, in report order.
const std::vector<RegisteredSection>& registered_sections();

// The size of the map_full counter array: the core's and the sections'.
int map_full_count();

}  // namespace kdelay
