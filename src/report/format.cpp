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

// Length of the UTF-8 sequence at text[i] (2 to 4), or 0 when it is not
// one: overlong forms, surrogates and code points past U+10FFFF are not.
size_t utf8_length(std::string_view text, size_t i)
{
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char b = byte(i);
    size_t n = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 ? 2 : 0;
    if (n == 0 || b > 0xf4 || i + n > text.size())
        return 0;
    for (size_t k = 1; k < n; ++k)
        if ((byte(i + k) & 0xc0) != 0x80)
            return 0;
    const unsigned char second = byte(i + 1);
    if ((b == 0xe0 && second < 0xa0) || (b == 0xed && second >= 0xa0) || (b == 0xf0 && second < 0x90) ||
        (b == 0xf4 && second >= 0x90))
        return 0;
    if (b == 0xc2 && second < 0xa0)
        return 0;  // U+0080 to U+009F: C1 controls, which terminals obey
    // Characters that break a line or reorder it where a terminal or an
    // editor shows it: U+2028 and U+2029 (line and paragraph separators),
    // the bidirectional marks and controls U+200E, U+200F, U+202A to
    // U+202E and U+2066 to U+2069, and U+061C (the Arabic letter mark).
    if (n == 3 && b == 0xe2) {
        const unsigned char third = byte(i + 2);
        if ((second == 0x80 && (third == 0x8e || third == 0x8f || (third >= 0xa8 && third <= 0xae))) ||
            (second == 0x81 && third >= 0xa6 && third <= 0xa9))
            return 0;
    }
    if (n == 2 && b == 0xd8 && second == 0x9c)
        return 0;
    return n;
}

}  // namespace

std::string printable(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out += static_cast<char>(c);
            ++i;
        } else if (const size_t n = c >= 0x80 ? utf8_length(text, i) : 0) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        }
    }
    return out;
}

std::string with_commas(uint64_t value)
{
    static const std::locale commas(std::locale::classic(), new CommaGrouping);
    return fmt::format(commas, "{:L}", value);
}

std::string task_label(const std::string& comm, uint32_t pid, uint32_t tid)
{
    return fmt::format("{} ({}/{})", comm, pid, tid);
}

std::string waker_label(WakerKind kind, const std::string& comm, uint32_t pid, uint32_t tid)
{
    if (kind == WakerKind::task)
        return task_label(comm, pid, tid);
    return kind == WakerKind::timer ? "[timer, hard IRQ]" : std::string("[") + kind_name(kind) + "]";
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

std::string name_without_digits(std::string_view name)
{
    std::string kind;
    for (const char c : name)
        if (c < '0' || c > '9')
            kind += c;
    return kind;
}

}  // namespace kdelay
