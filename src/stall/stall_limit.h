// A storm of stalls must not flood the journal: at most a few full reports a
// minute for each thread name (digits collapsed, so handler1..handler64 are
// one), the rest counted and told in one line a minute.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace kdelay {

class StallLimiter {
public:
    static constexpr uint64_t kMinuteNs = 60'000'000'000;

    // per_minute 0: every stall in full.
    explicit StallLimiter(unsigned per_minute) : per_minute_(per_minute) {}

    // Whether a stall of length ns, of thread name key, ending at now (ns
    // of any steady clock), is reported in full; if not, it is held back.
    bool admit(const std::string& key, uint64_t ns, uint64_t now);

    // The line on what was held back, once a minute after the first held
    // (or at once with flush); nullopt when there is nothing to tell yet.
    std::optional<std::string> summary(uint64_t now, bool flush = false);

private:
    struct Name {
        uint64_t window_start = 0;
        unsigned in_window = 0;
        uint64_t held = 0;
        uint64_t longest_held_ns = 0;
    };
    // Names kept at most (hostile ones could be endless); past that, the
    // ones whose minute is over go, then the rest share one.
    static constexpr size_t kMaxNames = 1024;
    unsigned per_minute_;
    std::map<std::string, Name> names_;
    uint64_t first_held_ = 0;  // 0: none held since the last summary
};

}  // namespace kdelay
