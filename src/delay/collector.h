// Reads the delay program's maps into a Sample and resets them between samples.
#pragma once

#include <array>
#include <cstdint>

#include "delay/sample.h"

namespace kdelay {

class BpfSession;

// Index of a map in map_full counts, as in delay_abi.h.
inline constexpr std::array<const char*, 4> kDelayMapNames = {"thread", "syscall", "hard IRQ",
                                                             "soft IRQ"};

class DelayCollector {
public:
    DelayCollector(BpfSession& session, uint32_t poll_nr);

    void start_capture();
    // Freezes the maps: the kernel side stops updating them.
    void stop_capture();
    Sample collect();
    // Clears all per-sample state, then re-arms (idle).
    void reset();
    // Updates lost because a map was full, per map, since the start.
    std::array<uint64_t, 4> map_full();

private:
    void set_capture(uint32_t state);
    BpfSession& session_;
    uint32_t poll_nr_;
};

}  // namespace kdelay
