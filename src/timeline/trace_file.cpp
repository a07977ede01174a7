#include "timeline/trace_file.h"

#include <ctime>
#include <fmt/format.h>


namespace kdelay {
namespace {

// At most 32 characters of a name, each safe in a file name.
std::string safe(const std::string& name)
{
    std::string out;
    for (unsigned char c : name) {
        if (out.size() == 32)
            break;
        out += std::isalnum(c) || c == '.' || c == '_' || c == '-' ? static_cast<char>(c) : '_';
    }
    if (out.empty() || out[0] == '.' || out[0] == '-')
        out.insert(out.begin(), '_');
    return out;
}

}  // namespace

std::string trace_file_name(const TraceFileName& n, const char* suffix)
{
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(n.start.time_since_epoch()).count();
    const time_t seconds = static_cast<time_t>(ms / 1000);
    tm local{};
    localtime_r(&seconds, &local);
    char when[32];
    strftime(when, sizeof(when), "%Y%m%dT%H%M%S", &local);
    return fmt::format("kdelay-stall-{}.{:03}-{}-{}-{}-{}{}", when, ms % 1000, safe(n.process), n.pid,
                       safe(n.thread), n.tid, suffix);
}

}  // namespace kdelay
