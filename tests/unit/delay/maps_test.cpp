#include "delay/maps.h"

#include <gtest/gtest.h>
#include <regex>
#include <set>

#include "delay/sample.h"
#include "delay/section.h"
#include "../loader/preprocess.h"
#include "test_params.h"

using namespace kdelay;

namespace {

DelayProgramParams base() { return kdtest::program_params(); }

// Each combination a feature gate can see.
std::vector<DelayProgramParams> variants()
{
    std::vector<DelayProgramParams> all;
    all.push_back(base());
    DelayProgramParams everything = base();
    everything.features.syscall_events = 0;
    everything.features.histograms = true;
    everything.features.budget = true;
    for (const FeatureSwitch* s : feature_switches())
        s->turn_on(everything.features);
    everything.block = BlockLayout{{104, 8}, {48, 8}, {24, 4}, {1064, 8}, {0, 4}, {4, 4}, std::nullopt};
    everything.upcalls = UpcallPlan::Probe::tracepoint;
    all.push_back(everything);
    DelayProgramParams events_only = base();
    events_only.features.syscall_events = 1000;
    all.push_back(events_only);
    return all;
}

std::set<std::string> declared(const std::string& src, const char* kinds)
{
    std::set<std::string> names;
    const std::regex decl(std::string("BPF_(") + kinds + R"()\(\s*(\w+))");
    for (auto it = std::sregex_iterator(src.begin(), src.end(), decl); it != std::sregex_iterator(); ++it)
        names.insert((*it)[2]);
    return names;
}

}  // namespace

// A table entry exists exactly when its gate says so; an ungated entry would
// make reset() fail on a map the program does not have.
TEST(DelayMaps, EachGateMatchesWhatTheProgramDeclares)
{
    for (const DelayProgramParams& p : variants()) {
        const std::set<std::string> maps =
            declared(kdtest::preprocessed(render_delay_program(p)), "HASH|ARRAY|PERCPU_ARRAY|STACK_TRACE");
        for (const DelayMap& m : sample_maps())
            EXPECT_EQ(maps.count(m.name) == 1, m.exists(p)) << m.name;
    }
}

// Every hash holds sample data: one missing from the table would carry one
// sample's entries into the next.
TEST(DelayMaps, EveryHashAndStackTableIsReset)
{
    for (const DelayProgramParams& p : variants())
        for (const std::string& name : declared(kdtest::preprocessed(render_delay_program(p)), "HASH|STACK_TRACE")) {
            bool listed = false;
            for (const DelayMap& m : sample_maps())
                listed |= name == m.name && m.reset == DelayMap::Reset::clear;
            EXPECT_TRUE(listed) << name << " is not cleared between samples";
        }
}

// Every map-full counter the program can bump belongs to one table entry,
// which names it in the warning.
TEST(DelayMaps, EveryMapFullCounterHasOneEntryThatNamesIt)
{
    for (int index = 0; index < map_full_count(); ++index) {
        int entries = 0;
        for (const DelayMap& m : sample_maps())
            if (m.full == index) {
                ++entries;
                EXPECT_NE(std::string(m.what), "") << m.name;
            }
        EXPECT_EQ(entries, 1) << "KD_MAP index " << index;
    }
}
