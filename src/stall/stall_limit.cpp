#include "stall/stall_limit.h"

#include <iterator>

#include "report/format.h"

namespace kdelay {

bool StallLimiter::admit(const std::string& key, uint64_t ns, uint64_t now)
{
    if (!per_minute_)
        return true;
    std::string name = key;
    if (names_.size() >= kMaxNames && !names_.count(name)) {
        for (auto it = names_.begin(); it != names_.end();)
            it = !it->second.held && now - it->second.window_start >= kMinuteNs ? names_.erase(it) : std::next(it);
        if (names_.size() >= kMaxNames)
            name = "(other names)";  // the one name past the bound
    }
    Name& n = names_[name];
    if (n.in_window == 0 || now - n.window_start >= kMinuteNs) {
        n.window_start = now;
        n.in_window = 0;
    }
    if (n.in_window < per_minute_) {
        ++n.in_window;
        return true;
    }
    ++n.held;
    if (ns > n.longest_held_ns)
        n.longest_held_ns = ns;
    if (!first_held_)
        first_held_ = now ? now : 1;
    return false;
}

std::optional<std::string> StallLimiter::summary(uint64_t now, bool flush)
{
    if (!first_held_ || (!flush && now - first_held_ < kMinuteNs))
        return std::nullopt;
    std::string text;
    uint64_t total = 0;
    for (auto& [key, n] : names_) {
        if (!n.held)
            continue;
        text += (text.empty() ? "" : ", ") + key + " " + with_commas(n.held) + " (longest " +
                with_commas(n.longest_held_ns / 1000000) + " ms)";
        total += n.held;
        n.held = 0;
        n.longest_held_ns = 0;
    }
    first_held_ = 0;
    return with_commas(total) + " more stalls not reported in full (at most " + std::to_string(per_minute_) +
           " a minute for each thread name; the metrics count every one): " + text;
}

}  // namespace kdelay
