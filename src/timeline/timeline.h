// A timeline: tracks of slices and instants, with flows between them, as
// the trace writers print it (timeline/perfetto.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kdelay {

struct TimelineSlice {
    uint64_t start_ns = 0;  // CLOCK_MONOTONIC
    uint64_t end_ns = 0;    // equal to start_ns: an instant
    std::string name;
    std::vector<std::pair<std::string, std::string>> args;
    std::vector<std::string> frames;  // a stack, innermost first
    std::vector<uint64_t> flows_out;  // flows that begin here
    std::vector<uint64_t> flows_in;   // flows that end here
    bool instant = false;
};

inline TimelineSlice make_slice(uint64_t start_ns, uint64_t end_ns, std::string name,
                                std::vector<std::pair<std::string, std::string>> args = {})
{
    TimelineSlice s;
    s.start_ns = start_ns;
    s.end_ns = end_ns;
    s.name = std::move(name);
    s.args = std::move(args);
    return s;
}

struct TimelineTrack {
    uint64_t uuid = 0;
    uint64_t parent = 0;  // 0: none
    std::string name;
    // A process's track (pid, no tid), a thread's (both), or a plain one.
    uint32_t pid = 0;
    uint32_t tid = 0;
    std::string process_name;
    std::string thread_name;
    std::vector<TimelineSlice> slices;  // by start; nested, never crossing
};

// A CPU-clock sample of a thread (--profile): where it ran at start_ns.
struct TimelineSample {
    uint64_t at_ns = 0;  // CLOCK_MONOTONIC
    uint32_t pid = 0;
    uint32_t tid = 0;
    std::vector<std::string> frames;  // "function [module]", outermost first
    bool in_kernel = false;
};

struct Timeline {
    std::vector<TimelineTrack> tracks;
    std::vector<TimelineSample> samples;  // by time
    // The samples' modules ("[libc.so.6]"'s libc.so.6): their GNU build-id
    // in hex, for the trace's mappings.
    std::map<std::string, std::string> build_ids;

    // Adds a later window's tracks: a track both have gets the later
    // slices after its own.
    void add(Timeline later)
    {
        for (TimelineTrack& t : later.tracks) {
            auto same = std::find_if(tracks.begin(), tracks.end(),
                                     [&](const TimelineTrack& mine) { return mine.uuid == t.uuid; });
            if (same == tracks.end()) {
                tracks.push_back(std::move(t));
                continue;
            }
            if (same->thread_name.empty())
                same->thread_name = t.thread_name;
            if (same->process_name.empty())
                same->process_name = t.process_name;
            for (TimelineSlice& s : t.slices)
                same->slices.push_back(std::move(s));
        }
        for (TimelineSample& s : later.samples)
            samples.push_back(std::move(s));
    }
};

}  // namespace kdelay
