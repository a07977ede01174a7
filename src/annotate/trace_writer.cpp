#include "annotate/trace_writer.h"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <rapidjson/encodings.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/writer.h>

#include "annotate/fixed_format.h"
#include "annotate/tsc_time.h"
#include "core/error.h"
#include "report/format.h"

namespace kdelay {
namespace {

constexpr size_t kFlushAt = 1 << 20;

// Raw writes into space reserved once per line: a capacity check per
// character was a fifth of the text writer's time.
char* put(char* p, std::string_view s)
{
    if (!s.empty())  // an empty view may have no data: memcpy's null is undefined even for 0 bytes
        std::memcpy(p, s.data(), s.size());
    return p + s.size();
}

// Text that the traced program chose (names, string arguments), made safe
// for a terminal as every kdelay report does. Printable ASCII is copied as
// trace.py prints it, a backslash too; a string with anything else goes
// through printable() whole, which escapes its backslashes as well, so
// that its escapes read one way. At most 4 bytes a byte.
char* put_text(char* p, std::string_view s)
{
    for (const unsigned char c : s)
        if (c < 0x20 || c >= 0x7f)
            return put(p, printable(s));
    return put(p, s);
}

char* put_spaces(char* p, size_t n)
{
    std::memset(p, ' ', n);
    return p + n;
}

char* put_decimal(char* p, uint64_t v)
{
    const fmt::format_int d(v);
    return put(p, std::string_view(d.data(), d.size()));
}

char* put_hex(char* p, uint64_t v)
{
    char digits[16];
    char* d = digits + sizeof(digits);
    do {
        *--d = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    return put(p, std::string_view(d, static_cast<size_t>(digits + sizeof(digits) - d)));
}

size_t code_points(std::string_view s)
{
    size_t points = 0;
    for (unsigned char c : s)
        points += (c & 0xC0) != 0x80;
    return points;
}

// Python pads strings to a width in code points: pads what was written
// from `from` to p.
char* pad_written(const char* from, char* p, size_t width)
{
    const auto len = static_cast<size_t>(p - from);
    if (len >= 4 * width)
        return p;  // a code point is at most 4 bytes
    const size_t points = code_points(std::string_view(from, len));
    return points < width ? put_spaces(p, width - points) : p;
}

bool is_python_space_suffix(std::string_view s, size_t& len)
{
    const auto n = s.size();
    const auto b = [&](size_t back) { return static_cast<unsigned char>(s[n - back]); };
    if (n >= 1 && ((b(1) >= 0x09 && b(1) <= 0x0D) || (b(1) >= 0x1C && b(1) <= 0x20))) {
        len = 1;
        return true;
    }
    if (n >= 2 && b(2) == 0xC2 && (b(1) == 0x85 || b(1) == 0xA0)) {  // U+0085, U+00A0
        len = 2;
        return true;
    }
    if (n >= 3) {
        const unsigned c0 = b(3), c1 = b(2), c2 = b(1);
        const bool space = (c0 == 0xE1 && c1 == 0x9A && c2 == 0x80) ||                  // U+1680
                           (c0 == 0xE2 && c1 == 0x80 && (c2 <= 0x8A || c2 == 0xA8 ||   // U+2000-200A, 2028
                                                          c2 == 0xA9 || c2 == 0xAF)) ||  // U+2029, 202F
                           (c0 == 0xE2 && c1 == 0x81 && c2 == 0x9F) ||                  // U+205F
                           (c0 == 0xE3 && c1 == 0x80 && c2 == 0x80);                    // U+3000
        if (space && c2 >= 0x80) {
            len = 3;
            return true;
        }
    }
    return false;
}

}  // namespace

size_t python_rstrip(std::string_view s)
{
    size_t len = 0;
    while (is_python_space_suffix(s, len))
        s.remove_suffix(len);
    return s.size();
}

void TraceWriter::write_out()
{
    const bool ok = std::fwrite(buf_.data(), 1, buf_.size(), out_) == buf_.size();
    buf_.clear();
    if (!ok)
        throw Error(Exit::ioerr, std::string("cannot write the output: ") + strerror(errno));
}

void TraceWriter::flush()
{
    write_out();
    if (std::fflush(out_) != 0)
        throw Error(Exit::ioerr, std::string("cannot write the output: ") + strerror(errno));
}

void TraceWriter::end_line()
{
    buf_.push_back('\n');
    if (buf_.size() >= kFlushAt)
        write_out();
}

std::string_view TraceWriter::poller(const TraceEntry& e) const
{
    if (e.has_poller)
        return e.poller;
    if (!e.has_owner)
        return {};
    const auto it = header_->owners.find(e.owner);
    return it == header_->owners.end() ? std::string_view(e.owner) : std::string_view(it->second);
}

void TraceTextWriter::header(const TraceHeader& header)
{
    TraceWriter::header(header);
    names_.clear();
    name_pad_.clear();
    for (const auto& t : header.tpoints) {
        names_.push_back(printable(t.name));
        const size_t points = code_points(names_.back());
        name_pad_.push_back(points < kNameWidth ? kNameWidth - points : 0);
    }
}

void TraceTextWriter::entry(const TraceEntry& e, const std::vector<NamedArg>& args)
{
    const std::string_view poller_text = poller(e);
    const auto tpoint = static_cast<size_t>(e.tpoint - header_->tpoints.data());
    // Room for the line: the fixed columns, then every string it copies,
    // each escaped at most 4 bytes a byte.
    size_t need = 2 * kFixed3Max + 256 + names_[tpoint].size() +
                  4 * (poller_text.size() + e.object_id.size() + e.related.size());
    for (const NamedArg& a : args)
        need += 32 + 4 * (a.annotation ? a.annotation->text.size() : a.name->size() + a.value->text.size());
    const size_t start = buf_.size();
    buf_.reserve(start + need);
    char* const line = buf_.data() + start;
    char* p = line;

    const fmt::format_int lcore(e.lcore);
    if (lcore.size() < 3)
        p = put_spaces(p, 3 - lcore.size());
    p = put(p, std::string_view(lcore.data(), lcore.size()));
    *p++ = ' ';
    p = write_fixed3(p, ticks_to_us(e.tsc, base_tsc(e), header_->tsc_rate), 16, Align::right);
    *p++ = ' ';
    char* from = p;
    p = pad_written(from, put_text(p, poller_text), 3);
    *p++ = ' ';
    p = put(p, names_[tpoint]);
    p = put_spaces(p, name_pad_[tpoint]);
    *p++ = ' ';
    if (e.size) {
        from = p;
        p = put_decimal(put(p, "size: "), e.size);
        p = pad_written(from, p, 12);
    } else {
        p = put_spaces(p, 12);
    }
    if (e.has_object_id) {
        p = put(p, "id: ");
        from = p;
        p = put_text(p, e.object_id);
        if (e.has_related)
            p = put(put_text(put(p, " ("), e.related), ")");
        p = pad_written(from, p, 12);
        *p++ = ' ';
    }
    if (e.has_time) {
        p = put(p, "time: ");
        p = write_fixed3(p, ticks_to_us(e.time, 0, header_->tsc_rate), 8, Align::left);
        *p++ = ' ';
    }
    for (size_t i = 0; i < args.size(); ++i) {
        const NamedArg& a = args[i];
        if (i)
            p = put(p, ", ");
        if (a.annotation) {
            p = put_text(p, a.annotation->text);
            continue;
        }
        p = put(put_text(p, *a.name), ": ");
        if (a.value->is_string) {
            if (a.type == static_cast<uint64_t>(TpointArgType::pointer))
                throw Error(Exit::dataerr, "entry " + std::to_string(e.index) + ": pointer argument '" +
                                               *a.name + "' holds a string");
            p = put_text(p, a.value->text);
        } else if (a.type == static_cast<uint64_t>(TpointArgType::pointer)) {
            p = put_hex(put(p, "0x"), a.value->integer);
        } else {
            p = put_decimal(p, a.value->integer);
        }
    }
    const auto len = static_cast<size_t>(p - line);
    buf_.resize(start + python_rstrip(std::string_view(line, len)));
    end_line();
}

namespace {

// rapidjson's output stream concept over a memory_buffer.
struct BufferStream {
    using Ch = char;
    fmt::memory_buffer& out;
    void Put(char c) { out.push_back(c); }
    void Flush() {}
};
using JsonWriter = rapidjson::Writer<BufferStream>;

// Strings go out as valid UTF-8, like every other kdelay JSON: an invalid
// byte becomes U+FFFD (nlohmann's replacement, for this rare case).
void put_string(JsonWriter& w, std::string_view s, std::string& scratch)
{
    bool ascii = true;
    for (unsigned char c : s)
        ascii = ascii && c < 0x80;
    if (!ascii) {
        rapidjson::MemoryStream in(s.data(), s.size());
        struct Discard {
            void Put(char) {}
        } discard;
        bool valid = true;
        while (valid && in.Tell() < s.size())
            valid = rapidjson::UTF8<>::Validate(in, discard);
        if (!valid) {
            const auto quoted = nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
            scratch = nlohmann::json::parse(quoted).get<std::string>();
            s = scratch;
        }
    }
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

void put_value(JsonWriter& w, const RecordValue& v, std::string& scratch)
{
    if (v.is_string)
        put_string(w, v.text, scratch);
    else
        w.Uint64(v.integer);
}

}  // namespace

void TraceJsonWriter::entry(const TraceEntry& e, const std::vector<NamedArg>& args)
{
    const uint64_t base = base_tsc(e);
    const uint64_t rate = header_->tsc_rate;
    BufferStream stream{buf_};
    JsonWriter w(stream);
    auto key = [&](const char* k) { w.Key(k); };
    auto text = [&](std::string_view v) { put_string(w, v, scratch_); };
    w.StartObject();
    key("type"), w.String("spdk_entry");
    key("index"), w.Uint64(e.index);
    key("lcore"), w.Uint64(e.lcore);
    key("tsc"), w.Uint64(e.tsc);
    key("ns"), w.Int64(ticks_to_ns(e.tsc, base, rate));
    key("tpoint"), text(e.tpoint->name);
    key("tpoint_id"), w.Uint64(e.tpoint->id);
    if (e.has_poller)
        key("poller"), text(e.poller);
    if (e.has_owner) {
        key("owner"), text(e.owner);
        const auto it = header_->owners.find(e.owner);
        if (it != header_->owners.end())
            key("owner_description"), text(it->second);
    }
    if (e.size)
        key("size"), w.Uint64(e.size);
    if (e.has_object) {
        key("object"), w.StartObject();
        if (e.has_object_id)
            key("id"), text(e.object_id);
        if (e.has_time) {
            key("time_tsc"), w.Uint64(e.time);
            key("time_ns"), w.Int64(ticks_to_ns(e.time, 0, rate));
        }
        if (e.has_value)
            key("value"), w.Uint64(e.value);
        w.EndObject();
    }
    if (e.has_related)
        key("related"), text(e.related);
    key("args"), w.StartArray();
    for (const NamedArg& a : args) {
        w.StartObject();
        key("name"), text(*a.name);
        key("value");
        if (a.value->is_string)
            text(a.value->text);
        else
            w.Uint64(a.value->integer);
        if (a.annotation) {
            // Rendered once per lifetime.
            auto [it, fresh] = annotations_.try_emplace(a.annotation);
            if (fresh) {
                fmt::memory_buffer json;
                BufferStream s{json};
                JsonWriter pw(s);
                pw.StartObject();
                for (const auto& [name, v] : a.annotation->items) {
                    pw.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
                    put_value(pw, v, scratch_);
                }
                pw.EndObject();
                it->second.assign(json.data(), json.size());
            }
            key("annotation"), w.RawValue(it->second.data(), it->second.size(), rapidjson::kObjectType);
        }
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    end_line();
}

}  // namespace kdelay
