#include "report/format.h"

#include <cstring>
#include <ctime>
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <locale>

namespace kdelay {
namespace {

struct CommaGrouping : std::numpunct<char> {
    char do_thousands_sep() const override { return ','; }
    std::string do_grouping() const override { return "\3"; }
};

}  // namespace

std::string with_commas(uint64_t value)
{
    static const std::locale commas(std::locale::classic(), new CommaGrouping);
    return fmt::format(commas, "{:L}", value);
}

std::string task_label(const std::string& comm, uint32_t pid, uint32_t tid)
{
    return fmt::format("{} ({}/{})", comm, pid, tid);
}

std::string waker_label(const std::string& kind, const std::string& comm, uint32_t pid, uint32_t tid)
{
    if (kind == "task")
        return task_label(comm, pid, tid);
    return kind == "timer" ? "[timer, hard IRQ]" : "[" + kind + "]";
}

std::string errno_name(int err, const char* unknown)
{
    const char* name = strerrorname_np(err);
    return name ? name : unknown;
}

std::string timestamp_suffix(std::chrono::system_clock::time_point when)
{
    const std::time_t secs = std::chrono::system_clock::to_time_t(when);
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            when.time_since_epoch()).count() % 1000000;
    std::tm local{}, utc{};
    localtime_r(&secs, &local);
    gmtime_r(&secs, &utc);
    // Like Python's isoformat(): microseconds only when nonzero.
    std::string iso = fmt::format("{:%Y-%m-%dT%H:%M:%S}", local);
    if (micros != 0)
        iso += fmt::format(".{:06}", micros);
    return fmt::format("@{} ({:%H:%M:%S} UTC)", iso, utc);
}

}  // namespace kdelay
