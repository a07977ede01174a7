#include "annotate/probe_records.h"

#include <cstring>
#include <string_view>
#include <unordered_map>

#include "core/error.h"

namespace kdelay {
namespace {

constexpr size_t kMaxLine = 1 << 20;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'; }
bool is_word(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

std::string_view trim(std::string_view s)
{
    while (!s.empty() && is_space(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && is_space(s.back()))
        s.remove_suffix(1);
    return s;
}

// Python's int(s, 16) for what a u64 holds: optional 0x, hex digits.
bool parse_hex(std::string_view s, uint64_t& out)
{
    s = trim(s);
    if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s.remove_prefix(2);
    if (s.empty())
        return false;
    uint64_t v = 0;
    for (char c : s) {
        unsigned d;
        if (c >= '0' && c <= '9')
            d = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = static_cast<unsigned>(c - 'A' + 10);
        else
            return false;
        if (v >> 60)
            return false;  // would overflow 64 bits
        v = v << 4 | d;
    }
    out = v;
    return true;
}

class LineParser {
public:
    LineParser(const std::string& name, const RecordSet& set, const RecordCallback& emit) : name_(name), emit_(emit)
    {
        for (const auto& p : set.probes)
            probes_[p.name] = &p;
    }

    void line(std::string_view text, size_t number)
    {
        if (text.size() > kMaxLine)
            fail(number, "line is longer than 1 MiB");
        size_t n = 0;
        while (n < text.size() && is_word(text[n]))
            ++n;
        if (n == 0 || text.substr(n, 2) != ": ")
            return;  // not a record
        const auto it = probes_.find(std::string(text.substr(0, n)));
        if (it == probes_.end())
            return;  // a probe we were not asked about
        record_.probe = it->second;
        record_.line = number;
        record_.values.resize(it->second->args.size());  // reused from line to line
        parse_args(record_, text.substr(n + 2));
        emit_(record_);
    }

private:
    [[noreturn]] void fail(size_t line, const std::string& why) const
    {
        throw Error(Exit::dataerr, name_ + ": line " + std::to_string(line) + ": " + why);
    }

    void parse_args(ProbeRecord& r, std::string_view rest)
    {
        const RecordProbe& probe = *r.probe;
        std::vector<bool> seen(probe.args.size());
        auto bad = [&](const std::string& why) { fail(r.line, probe.name + ": " + why); };
        size_t pos = 0;
        while (pos <= rest.size()) {
            const size_t eq = rest.find('=', pos);
            const size_t comma = rest.find(',', pos);
            if (eq == std::string_view::npos || (comma != std::string_view::npos && comma < eq))
                bad("expected name=value in '" + std::string(trim(rest.substr(pos, comma - pos))) + "'");
            const std::string key(trim(rest.substr(pos, eq - pos)));
            size_t index = 0;
            while (index < probe.args.size() && probe.args[index].name != key)
                ++index;
            if (index == probe.args.size())
                bad("unexpected argument '" + key + "'");
            const RecordArg& arg = probe.args[index];
            RecordValue& value = r.values[index];
            seen[index] = true;
            value.is_string = arg.is_string;
            size_t end = rest.find(',', eq + 1);
            std::string_view raw = rest.substr(eq + 1, end == std::string_view::npos ? end : end - eq - 1);
            if (arg.is_string) {
                value.is_string = true;
                const size_t open = rest.find_first_not_of(" \t", eq + 1);
                if (open != std::string_view::npos && rest[open] == '\'') {
                    // The closing quote is the one followed by a comma or the end.
                    size_t close = open;
                    for (;;) {
                        close = rest.find('\'', close + 1);
                        if (close == std::string_view::npos)
                            bad("unterminated string in argument '" + key + "'");
                        const size_t after = rest.find_first_not_of(" \t\r", close + 1);
                        if (after == std::string_view::npos || rest[after] == ',') {
                            end = after;
                            break;
                        }
                    }
                    value.text.assign(rest.substr(open + 1, close - open - 1));
                } else {
                    std::string_view s = trim(raw);
                    while (!s.empty() && s.front() == '\'')
                        s.remove_prefix(1);
                    while (!s.empty() && s.back() == '\'')
                        s.remove_suffix(1);
                    value.text.assign(s);
                }
            } else if (!parse_hex(raw, value.integer)) {
                bad("argument '" + key + "': '" + std::string(trim(raw)) + "' is not a hex integer of 64 bits");
            }
            if (end == std::string_view::npos)
                break;
            pos = end + 1;
        }
        for (size_t i = 0; i < seen.size(); ++i)
            if (!seen[i])
                bad("missing argument '" + probe.args[i].name + "'");
    }

    std::string name_;
    const RecordCallback& emit_;
    std::unordered_map<std::string, const RecordProbe*> probes_;
    ProbeRecord record_;
};

}  // namespace

std::vector<ProbeRecord> parse_probe_records(const std::string& text, const std::string& name, const RecordSet& set)
{
    std::vector<ProbeRecord> records;
    const RecordCallback keep = [&](const ProbeRecord& r) { records.push_back(r); };
    LineParser parser(name, set, keep);
    size_t number = 0, start = 0;
    while (start < text.size()) {
        size_t nl = text.find('\n', start);
        if (nl == std::string::npos)
            nl = text.size();
        parser.line(std::string_view(text).substr(start, nl - start), ++number);
        start = nl + 1;
    }
    return records;
}

void for_each_probe_record(std::FILE* in, const std::string& name, const RecordSet& set, const RecordCallback& fn)
{
    LineParser parser(name, set, fn);
    std::string line;
    std::vector<char> block(1 << 16);
    size_t number = 0;
    bool too_long = false;
    for (;;) {
        const size_t got = std::fread(block.data(), 1, block.size(), in);
        if (got == 0)
            break;
        std::string_view data(block.data(), got);
        while (!data.empty()) {
            const size_t nl = data.find('\n');
            const std::string_view piece = data.substr(0, nl);
            // Keep at most one byte past the limit, so a huge line costs no memory.
            if (!too_long)
                line.append(piece.substr(0, std::min(piece.size(), kMaxLine + 1 - line.size())));
            too_long = line.size() > kMaxLine;
            if (nl == std::string_view::npos)
                break;
            parser.line(line, ++number);
            line.clear();
            too_long = false;
            data.remove_prefix(nl + 1);
        }
    }
    if (std::ferror(in))
        throw Error(Exit::ioerr, name + ": read error");
    if (!line.empty())
        parser.line(line, ++number);
}

std::vector<ProbeRecord> read_probe_records(std::FILE* in, const std::string& name, const RecordSet& set)
{
    std::vector<ProbeRecord> records;
    for_each_probe_record(in, name, set, [&](const ProbeRecord& r) { records.push_back(r); });
    return records;
}

}  // namespace kdelay
