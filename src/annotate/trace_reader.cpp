#include "annotate/trace_reader.h"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "annotate/block_input.h"
#include "core/error.h"

namespace kdelay {
namespace {

constexpr unsigned kMaxDepth = 64;     // deeper input is hostile: the parser recurses
constexpr size_t kMaxArgs = 4096;      // SPDK entries carry at most 8
constexpr uint64_t kSmallIds = 65536;  // ids below this are looked up in a vector

constexpr uint64_t kMaxEntryBytes = 64 << 20;   // SPDK entries are ~200 bytes
constexpr uint64_t kMaxOtherBytes = 1ull << 30;  // the definitions are kilobytes

enum class State { document, root, tpoints, tpoint, tpoint_args, tpoint_arg, owners, owner, entries, entry, object, entry_args };

enum class Field {
    none, unknown,
    tsc_rate, tpoints, entries, owners,                        // top level
    name, id, new_object, args, type, description,             // definitions
    lcore, tpoint, tsc, poller, owner, size, object, related,  // entries
    time, value,                                               // entry.object
};

enum Seen : unsigned { seen_lcore = 1, seen_tpoint = 2, seen_tsc = 4, seen_name = 8, seen_id = 16, seen_type = 32 };

// The keys read, by the state they are read in: one table for the lookup
// and for the names in error messages. The entries' keys are matched on
// the fast path first, as literals (FastEntryReader::known_key).
struct KeyName {
    State state;
    const char* key;
    Field field;
};
constexpr KeyName kKeys[] = {
    {State::root, "tsc_rate", Field::tsc_rate},  {State::root, "tpoints", Field::tpoints},
    {State::root, "entries", Field::entries},    {State::root, "owners", Field::owners},
    {State::tpoint, "name", Field::name},        {State::tpoint, "id", Field::id},
    {State::tpoint, "new_object", Field::new_object}, {State::tpoint, "args", Field::args},
    {State::tpoint_arg, "name", Field::name},    {State::tpoint_arg, "type", Field::type},
    {State::owner, "description", Field::description},
    {State::entry, "lcore", Field::lcore},       {State::entry, "tpoint", Field::tpoint},
    {State::entry, "tsc", Field::tsc},           {State::entry, "poller", Field::poller},
    {State::entry, "owner", Field::owner},       {State::entry, "size", Field::size},
    {State::entry, "object", Field::object},     {State::entry, "related", Field::related},
    {State::entry, "args", Field::args},
    {State::object, "id", Field::id},            {State::object, "time", Field::time},
    {State::object, "value", Field::value},
};

const char* field_name(Field f)
{
    for (const KeyName& k : kKeys)
        if (k.field == f)
            return k.key;
    return "";
}

Field key_in(State s, std::string_view k)
{
    for (const KeyName& known : kKeys)
        if (known.state == s && k == known.key)
            return known.field;
    return Field::unknown;
}

// The entry being read, for the SAX handler and the fast path alike: its
// fields as they come, then checked against the definitions and passed to
// the sink. It also keeps the first error, with its input offset.
class EntryBuilder {
public:
    EntryBuilder(TraceSink& sink, BlockInput& in) : sink_(sink), in_(in) {}

    const std::string& error() const { return error_; }
    uint64_t error_offset() const { return error_offset_; }
    bool fail_here(const std::string& why) { return fail_at(in_.tell(), why); }
    bool fail_at(uint64_t offset, const std::string& why)
    {
        error_ = why;
        error_offset_ = offset;
        return false;
    }

    // "entries" begins: the definitions read so far are final.
    void start(const TraceHeader& header)
    {
        header_ = &header;
        by_small_id_.clear();
        by_id_.clear();
        for (const auto& t : header.tpoints) {
            if (t.id < kSmallIds) {
                if (by_small_id_.size() <= t.id)
                    by_small_id_.resize(t.id + 1, nullptr);
                by_small_id_[t.id] = &t;
            } else {
                by_id_[t.id] = &t;
            }
        }
        sink_.header(header);
    }

    // An entry begins at this input offset.
    void begin(uint64_t offset)
    {
        cur_ = &sink_.next_entry();
        cur_->offset = offset;
        cur_->index = entries_;
        cur_->tpoint = nullptr;
        cur_->has_poller = cur_->has_owner = cur_->has_object = cur_->has_object_id = false;
        cur_->has_time = cur_->has_value = cur_->has_related = false;
        cur_->size = 0;
        cur_->arg_count = 0;
        seen_ = 0;
    }
    uint64_t index() const { return cur_->index; }
    void object_begins() { cur_->has_object = true; }
    void args_begin() { cur_->arg_count = 0; }

    // A field of the entry (State::entry) or of its object (State::object);
    // false for one that is not read as this type.
    bool set_number(State s, Field f, uint64_t u)
    {
        if (s == State::object) {
            switch (f) {
            case Field::time: cur_->has_time = true; cur_->time = u; return true;
            case Field::value: cur_->has_value = true; cur_->value = u; return true;
            default: return false;
            }
        }
        switch (f) {
        case Field::lcore: cur_->lcore = u; seen_ |= seen_lcore; return true;
        case Field::tpoint: tpoint_id_ = u; seen_ |= seen_tpoint; return true;
        case Field::tsc: cur_->tsc = u; seen_ |= seen_tsc; return true;
        case Field::size: cur_->size = u; return true;
        case Field::owner: {
            const fmt::format_int id(u);
            return set_string(s, f, std::string_view(id.data(), id.size()));
        }
        default: return false;
        }
    }
    bool set_string(State s, Field f, std::string_view v)
    {
        if (s == State::object) {
            if (f != Field::id)
                return false;
            cur_->has_object_id = true;
            cur_->object_id.assign(v.data(), v.size());
            return true;
        }
        switch (f) {
        case Field::poller: cur_->has_poller = true; cur_->poller.assign(v.data(), v.size()); return true;
        case Field::related: cur_->has_related = true; cur_->related.assign(v.data(), v.size()); return true;
        case Field::owner: cur_->has_owner = true; cur_->owner.assign(v.data(), v.size()); return true;
        default: return false;
        }
    }
    bool add_arg(bool is_string, uint64_t integer, std::string_view text)
    {
        if (cur_->arg_count >= kMaxArgs)
            return fail_here("entry " + std::to_string(cur_->index) + " has more than " + std::to_string(kMaxArgs) +
                             " args");
        if (cur_->args.size() <= cur_->arg_count)
            cur_->args.emplace_back();
        TraceArg* a = &cur_->args[cur_->arg_count++];
        a->is_string = is_string;
        a->integer = integer;
        if (is_string)
            a->text.assign(text.data(), text.size());
        return true;
    }

    // The entry ends: checked, then passed on. False with an error.
    bool end()
    {
        const uint64_t at = cur_->offset;
        const auto which = [&] { return "entry " + std::to_string(cur_->index) + ": "; };
        if (!(seen_ & seen_lcore) || !(seen_ & seen_tpoint) || !(seen_ & seen_tsc))
            return fail_at(at, which() + "needs \"lcore\", \"tpoint\" and \"tsc\"");
        cur_->tpoint = find_tpoint(tpoint_id_);
        if (!cur_->tpoint)
            return fail_at(at, which() + "unknown tpoint id " + std::to_string(tpoint_id_) +
                                   " (not in \"tpoints\" before \"entries\")");
        if (!header_ || header_->tsc_rate == 0)
            return fail_at(at, which() + "\"tsc_rate\" is missing or 0 before \"entries\"");
        const auto& defs = cur_->tpoint->args;
        for (size_t i = 0; i < cur_->arg_count && i < defs.size(); ++i) {
            const bool want_string = defs[i].type == static_cast<uint64_t>(TpointArgType::string);
            const bool want_integer = defs[i].type == static_cast<uint64_t>(TpointArgType::integer) ||
                                      defs[i].type == static_cast<uint64_t>(TpointArgType::pointer);
            if ((want_string && !cur_->args[i].is_string) || (want_integer && cur_->args[i].is_string))
                return fail_at(at, which() + "arg " + std::to_string(i) + " (" + defs[i].name + ") of " +
                                       cur_->tpoint->name + " should be " +
                                       (want_string ? "a string" : "an integer"));
        }
        sink_.entry(*cur_);
        ++entries_;
        return true;
    }

private:
    const Tpoint* find_tpoint(uint64_t id) const
    {
        if (id < by_small_id_.size())
            return by_small_id_[id];
        const auto it = by_id_.find(id);
        return it == by_id_.end() ? nullptr : it->second;
    }

    TraceSink& sink_;
    BlockInput& in_;
    const TraceHeader* header_ = nullptr;  // from "entries" on
    std::vector<const Tpoint*> by_small_id_;
    std::unordered_map<uint64_t, const Tpoint*> by_id_;
    TraceEntry idle_;           // before the first entry
    TraceEntry* cur_ = &idle_;  // the sink's slot for the entry being read
    unsigned seen_ = 0;
    uint64_t tpoint_id_ = 0;
    uint64_t entries_ = 0;
    std::string error_;
    uint64_t error_offset_ = 0;
};

// The common shape of an entry, read without rapidjson: compact or spaced
// objects with the known keys, unsigned integers and strings without
// escapes. Anything else, and every error, is left to the SAX handler.
class FastEntryReader {
public:
    explicit FastEntryReader(EntryBuilder& entry) : entry_(entry) {}

    // The entry at p ('{'), in data that ends at end (a NUL follows it):
    // the position after it, once passed on; null when rapidjson must read
    // it, or on an error (entry.error()).
    const char* read(const char* p, const char* end, uint64_t offset)
    {
        end_ = end;
        entry_.begin(offset);
        const char* after = members(p + 1, '}', [this](const char* q) {
            Field f = Field::none;
            if (!(q = key(q, State::entry, f)))
                return q;
            q = ws(q);
            return f == Field::object ? object(q) : f == Field::args ? args(q) : scalar(q, State::entry, f);
        });
        return after && (entry_.end() || !entry_.error().empty()) ? after : nullptr;
    }

private:
    static const char* ws(const char* p)
    {
        while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
            ++p;
        return p;
    }
    // A string without escapes or control characters; null otherwise.
    static const char* string_at(const char* p, std::string_view& out)
    {
        if (*p != '"')
            return nullptr;
        const char* start = ++p;
        for (;;) {
            const auto c = static_cast<unsigned char>(*p);
            if (c == '"')
                break;
            if (c == '\\' || c < 0x20)
                return nullptr;
            ++p;
        }
        out = std::string_view(start, static_cast<size_t>(p - start));
        return p + 1;
    }
    static bool digit(char c) { return static_cast<unsigned char>(c - '0') < 10; }
    // A JSON integer that fits in 64 bits; null for anything else. Any 19
    // digits fit, so only a 20th is checked for overflow.
    static const char* number(const char* p, uint64_t& out)
    {
        if (!digit(*p) || (*p == '0' && digit(p[1])))
            return nullptr;
        const char* const unchecked_end = p + 19;
        uint64_t v = 0;
        for (; p < unchecked_end && digit(*p); ++p)
            v = v * 10 + static_cast<uint64_t>(*p - '0');
        if (digit(*p)) {
            const auto d = static_cast<uint64_t>(*p++ - '0');
            if (v > (UINT64_MAX - d) / 10 || digit(*p))
                return nullptr;
            v = v * 10 + d;
        }
        if (*p == '.' || *p == 'e' || *p == 'E')
            return nullptr;
        out = v;
        return p;
    }
    // A key and its colon as spdk_trace writes them ("lcore":), matched as
    // one literal, within the data: the general path scans the key, then
    // looks it up. Null when p holds anything else, which the general path
    // then reads.
    const char* known_key(const char* p, State s, Field& f) const
    {
        const auto after = [&](std::string_view literal, Field field) -> const char* {
            if (static_cast<size_t>(end_ - p) < literal.size() || std::memcmp(p, literal.data(), literal.size()) != 0)
                return nullptr;
            f = field;
            return p + literal.size();
        };
        if (s == State::object) {
            switch (p[1]) {
            case 'i': return after("\"id\":", Field::id);
            case 't': return after("\"time\":", Field::time);
            case 'v': return after("\"value\":", Field::value);
            default: return nullptr;
            }
        }
        const char* q = nullptr;
        switch (p[1]) {
        case 'a': return after("\"args\":", Field::args);
        case 'l': return after("\"lcore\":", Field::lcore);
        case 'p': return after("\"poller\":", Field::poller);
        case 'r': return after("\"related\":", Field::related);
        case 's': return after("\"size\":", Field::size);
        case 'o': return (q = after("\"object\":", Field::object)) ? q : after("\"owner\":", Field::owner);
        case 't': return (q = after("\"tsc\":", Field::tsc)) ? q : after("\"tpoint\":", Field::tpoint);
        default: return nullptr;
        }
    }
    // A key and its colon: the field it names, and the position after.
    const char* key(const char* p, State s, Field& f) const
    {
        if (const char* after = known_key(p, s, f))
            return after;
        std::string_view k;
        if (!(p = string_at(p, k)))
            return nullptr;
        p = ws(p);
        if (*p != ':')
            return nullptr;
        f = key_in(s, k);
        return p + 1;
    }
    // A string or an unsigned integer for field f; null for anything else.
    const char* scalar(const char* p, State s, Field f)
    {
        if (*p == '"') {
            std::string_view v;
            p = string_at(p, v);
            return p && entry_.set_string(s, f, v) ? p : nullptr;
        }
        uint64_t v = 0;
        p = number(p, v);
        return p && entry_.set_number(s, f, v) ? p : nullptr;
    }
    const char* object(const char* p)
    {
        if (*p != '{')
            return nullptr;
        entry_.object_begins();
        return members(p + 1, '}', [this](const char* q) {
            Field f = Field::none;
            return (q = key(q, State::object, f)) ? scalar(ws(q), State::object, f) : q;
        });
    }
    const char* args(const char* p)
    {
        if (*p != '[')
            return nullptr;
        entry_.args_begin();
        return members(p + 1, ']', [this](const char* q) {
            std::string_view text;
            uint64_t integer = 0;
            const bool is_string = *q == '"';
            q = is_string ? string_at(q, text) : number(q, integer);
            return q && entry_.add_arg(is_string, integer, text) ? q : nullptr;
        });
    }
    // The members of an object or the elements of an array, after its
    // opening: each read by `member`, which returns the position after it
    // or null. The position after `close`, or null.
    template <class Member>
    static const char* members(const char* p, char close, Member member)
    {
        p = ws(p);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (!(p = member(p)))
                return nullptr;
            p = ws(p);
            if (*p != ',')
                return *p == close ? p + 1 : nullptr;
            p = ws(p + 1);
        }
    }

    EntryBuilder& entry_;
    const char* end_ = nullptr;
};

// rapidjson's SAX callbacks: the definitions (tsc_rate, tpoints, owners),
// the document's structure, and each entry the fast path leaves to it.
class SaxHandler {
public:
    SaxHandler(EntryBuilder& entry, BlockInput& in) : entry_(entry), in_(in) {}

    const std::string& error() const { return entry_.error(); }
    uint64_t error_offset() const { return entry_.error_offset(); }

    // A scalar of the definitions (before the entries): where it goes, by
    // state and key, and what it marks as seen. False if it is not one.
    template <class Slot, class Value>
    bool put(Slot& slot, Value value, unsigned seen = 0)
    {
        slot = value;
        seen_ |= seen;
        return true;
    }
    bool set_definition(uint64_t u)
    {
        if (state() == State::root && key_ == Field::tsc_rate)
            return put(header_.tsc_rate, u);
        if (state() == State::tpoint && key_ == Field::id)
            return put(tpoint_.id, u, seen_id);
        if (state() == State::tpoint_arg && key_ == Field::type)
            return put(arg_.type, u, seen_type);
        return false;
    }
    bool set_definition(std::string_view text)
    {
        if (state() == State::tpoint && key_ == Field::name)
            return put(tpoint_.name, text, seen_name);
        if (state() == State::tpoint_arg && key_ == Field::name)
            return put(arg_.name, text, seen_name);
        if (state() == State::owners || (state() == State::owner && key_ == Field::description))
            return put(header_.owners[owner_key_], text);
        return false;
    }

    // A number or a string, wherever it stands.
    template <class Value>
    bool scalar(Value value, const char* expected)
    {
        if (skipping() || set_definition(value))
            return true;
        constexpr bool text = std::is_same_v<Value, std::string_view>;
        switch (state()) {
        case State::entry:
        case State::object:
            if constexpr (text) {
                if (entry_.set_string(state(), key_, value))
                    return true;
            } else if (entry_.set_number(state(), key_, value)) {
                return true;
            }
            break;
        case State::entry_args:
            if constexpr (text)
                return entry_.add_arg(true, 0, value);
            else
                return entry_.add_arg(false, value, {});
        default:
            break;
        }
        return scalar_type_error(expected);
    }

    bool Null()
    {
        if (skipping())
            return true;
        if (state() == State::entry && (key_ == Field::poller || key_ == Field::size || key_ == Field::related ||
                                        key_ == Field::owner))
            return true;  // absent, as trace.py reads a null
        return scalar_type_error("null");
    }
    bool Bool(bool b)
    {
        if (skipping())
            return true;
        if (state() == State::tpoint && key_ == Field::new_object) {
            tpoint_.new_object = b;
            return true;
        }
        return scalar_type_error("a boolean");
    }
    bool Int(int) { return negative(); }
    bool Int64(int64_t) { return negative(); }
    bool Uint(unsigned u) { return Uint64(u); }
    bool Uint64(uint64_t u) { return scalar(u, "a number"); }
    bool Double(double)
    {
        if (skipping() || key_ == Field::unknown)
            return true;
        return fail_here(std::string("\"") + field_name(key_) + "\" " + where() +
                         ": expected an unsigned 64-bit integer, found a fraction or a number out of range");
    }
    bool RawNumber(const char*, rapidjson::SizeType, bool) { return fail_here("raw numbers are not read"); }
    bool String(const char* s, rapidjson::SizeType n, bool) { return scalar(std::string_view(s, n), "a string"); }

    bool StartObject() { return opened(&SaxHandler::open_object); }
    bool StartArray() { return opened(&SaxHandler::open_array); }
    // An object or array begins: counted, skipped whole under a key that is
    // not read, else opened by state and key.
    bool opened(bool (SaxHandler::*open)())
    {
        if (!enter())
            return false;
        return skipping() || (this->*open)();
    }
    bool open_object()
    {
        switch (state()) {
        case State::document:
            return push(State::root);
        case State::root:
            if (key_ == Field::owners && !in_entries_)
                return push(State::owners);
            break;
        case State::tpoints:
            tpoint_ = Tpoint{};
            seen_ = 0;
            return push(State::tpoint);
        case State::tpoint_args:
            arg_ = TpointArg{};
            seen_ = 0;
            return push(State::tpoint_arg);
        case State::owners:
            return push(State::owner);
        case State::entries:
            entry_.begin(in_.tell() - 1);
            return push(State::entry);
        case State::entry:
            if (key_ == Field::object) {
                entry_.object_begins();
                return push(State::object);
            }
            break;
        default:
            break;
        }
        return container_type_error("an object");
    }
    bool Key(const char* s, rapidjson::SizeType n, bool)
    {
        if (skipping())
            return true;
        if (state() == State::owners) {
            owner_key_.assign(s, n);
            key_ = Field::none;
            return true;
        }
        key_ = key_in(state(), std::string_view(s, n));
        if (state() == State::root && in_entries_ && key_ != Field::entries)
            key_ = Field::unknown;  // as trace.py: definitions after the entries are not read
        return true;
    }
    // The end of an object or array: the state it closes, or none while
    // skipping one that is not read.
    std::optional<State> leave()
    {
        --depth_;
        if (skip_ > 0) {
            --skip_;
            return std::nullopt;
        }
        const State done = state();
        stack_.pop_back();
        key_ = Field::none;
        return done;
    }
    bool EndObject(rapidjson::SizeType)
    {
        const std::optional<State> left = leave();
        if (!left)
            return true;
        switch (*left) {
        case State::tpoint:
            return end_tpoint();
        case State::tpoint_arg:
            if ((seen_ & (seen_name | seen_type)) != (seen_name | seen_type))
                return fail_here("a tpoint argument needs \"name\" and \"type\"");
            tpoint_.args.push_back(std::move(arg_));
            return true;
        case State::entry:
            return entry_.end();
        default:
            return true;
        }
    }
    bool open_array()
    {
        const State in = state();
        if (in == State::root && key_ == Field::tpoints && !in_entries_)
            return push(State::tpoints);
        if (in == State::root && key_ == Field::entries) {
            // The entries are read by read_entries(), not by rapidjson.
            start_entries();
            push(State::entries);
            at_entries_ = true;
            return false;
        }
        if (in == State::tpoint && key_ == Field::args) {
            saved_seen_ = seen_;
            return push(State::tpoint_args);
        }
        if (in == State::entry && key_ == Field::args) {
            entry_.args_begin();
            return push(State::entry_args);
        }
        return container_type_error("an array");
    }
    bool EndArray(rapidjson::SizeType)
    {
        const std::optional<State> left = leave();
        if (left && *left == State::tpoint_args)
            seen_ = saved_seen_;
        return true;
    }

    // Set when rapidjson stopped at the start of an "entries" array.
    bool take_at_entries()
    {
        const bool at = at_entries_;
        at_entries_ = false;
        return at;
    }
    // After the entries' closing bracket: back to the top-level object.
    void leave_entries()
    {
        stack_.pop_back();
        --depth_;
        key_ = Field::none;
    }
    // Before resuming the top level after the entries through a prefix
    // that reopens the object.
    void resume_top_level()
    {
        stack_.clear();
        depth_ = 0;
        key_ = Field::none;
    }
    void fail_entry_syntax(uint64_t offset, const std::string& why) { entry_.fail_at(offset, why); }

private:
    State state() const { return stack_.empty() ? State::document : stack_.back(); }
    bool skipping() const { return skip_ > 0; }
    bool push(State s)
    {
        stack_.push_back(s);
        key_ = Field::none;
        return true;
    }
    // Counts nesting; a container under an unknown key is skipped whole.
    bool enter()
    {
        if (++depth_ > kMaxDepth)
            return fail_here("nested deeper than " + std::to_string(kMaxDepth) + " levels");
        if (skip_ > 0 || key_ == Field::unknown) {
            ++skip_;
            key_ = Field::none;
        }
        return true;
    }

    bool fail_here(const std::string& why) { return entry_.fail_here(why); }
    std::string where() const
    {
        switch (state()) {
        case State::root: return "at the top level";
        case State::tpoints: case State::tpoint: case State::tpoint_args: case State::tpoint_arg:
            return "in a tpoint definition";
        case State::owners: case State::owner: return "in \"owners\"";
        case State::entries: return "in \"entries\"";
        case State::entry: case State::object: case State::entry_args:
            return "in entry " + std::to_string(entry_.index());
        default: return "";
        }
    }
    bool scalar_type_error(const char* found)
    {
        if (key_ == Field::unknown)
            return true;  // a value trace.py does not read either
        return container_type_error(found);
    }
    bool container_type_error(const char* found)
    {
        if (state() == State::document)
            return fail_here("the input is not a JSON object");
        const char* key = field_name(key_);
        return fail_here(std::string(*key ? "\"" : "") + key + (*key ? "\" " : "") + where() + ": wrong type (" +
                         found + ")");
    }
    bool negative()
    {
        if (skipping() || key_ == Field::unknown)
            return true;
        return fail_here(std::string("\"") + field_name(key_) + "\" " + where() +
                         ": expected an unsigned 64-bit integer, found a negative number");
    }

    bool end_tpoint()
    {
        if ((seen_ & (seen_name | seen_id)) != (seen_name | seen_id))
            return fail_here("a tpoint definition needs \"name\" and \"id\"");
        // A repeated id replaces the definition in place, as a Python dict does.
        for (auto& t : header_.tpoints)
            if (t.id == tpoint_.id) {
                t = std::move(tpoint_);
                return true;
            }
        header_.tpoints.push_back(std::move(tpoint_));
        return true;
    }
    void start_entries()
    {
        if (!in_entries_) {
            in_entries_ = true;
            entry_.start(header_);
        }
    }

    EntryBuilder& entry_;
    BlockInput& in_;
    bool at_entries_ = false;
    std::vector<State> stack_;
    Field key_ = Field::none;
    unsigned depth_ = 0;
    unsigned skip_ = 0;
    unsigned seen_ = 0, saved_seen_ = 0;
    bool in_entries_ = false;
    TraceHeader header_;
    Tpoint tpoint_;
    TpointArg arg_;
    std::string owner_key_;
};

}  // namespace

namespace {

[[noreturn]] void throw_parse_error(const std::string& name, const SaxHandler& handler,
                                   const rapidjson::ParseResult& result, BlockInput& in)
{
    if (!handler.error().empty())
        throw Error(Exit::dataerr, name + ": byte " + std::to_string(handler.error_offset()) + ": " +
                                       handler.error());
    const bool at_end = in.peek() == 0 && in.pos() == in.end() && in.eof();
    throw Error(Exit::dataerr, name + ": byte " + std::to_string(in.tell()) + ": invalid JSON: " +
                                   (at_end && in.tell() > 0 ? std::string("the input ends too early (truncated?)")
                                                            : rapidjson::GetParseError_En(result.Code())));
}

// The elements of an "entries" array, after its '['; consumes the ']'.
void read_entries(BlockInput& in, SaxHandler& handler, FastEntryReader& fast, rapidjson::Reader& reader,
                  const std::string& name)
{
    constexpr size_t kWindow = 64 << 10;  // an entry longer than this goes to rapidjson
    auto skip_ws = [&] {
        while (in.peek() == ' ' || in.peek() == '\n' || in.peek() == '\r' || in.peek() == '\t')
            in.take();
    };
    auto fail = [&](const std::string& why) {
        handler.fail_entry_syntax(in.tell(), why);
        throw_parse_error(name, handler, rapidjson::ParseResult(), in);
    };
    skip_ws();
    if (in.peek() == ']') {
        in.take();
        handler.leave_entries();
        return;
    }
    for (;;) {
        skip_ws();
        if (in.peek() != '{') {
            if (in.peek() == 0 && in.pos() == in.end())
                fail("invalid JSON: the input ends too early (truncated?)");
            fail("expected an entry object in \"entries\"");
        }
        in.fill(kWindow);
        if (const char* next = fast.read(in.pos(), in.end(), in.offset(in.pos()))) {
            if (!handler.error().empty())
                throw_parse_error(name, handler, rapidjson::ParseResult(), in);
            in.advance_to(next);
        } else if (!handler.error().empty()) {
            throw_parse_error(name, handler, rapidjson::ParseResult(), in);
        } else {
            BlockStream stream(in, kMaxEntryBytes);
            const auto result = reader.Parse<rapidjson::kParseStopWhenDoneFlag>(stream, handler);
            if (result.IsError() && stream.over_limit())
                fail("an entry longer than 64 MiB (not spdk_trace output?)");
            if (result.IsError())
                throw_parse_error(name, handler, result, in);
        }
        skip_ws();
        const char c = in.take();
        if (c == ']')
            break;
        if (c != ',') {
            if (c == 0 && in.pos() == in.end())
                fail("invalid JSON: the input ends too early (truncated?)");
            fail("invalid JSON: expected ',' or ']' after an entry");
        }
    }
    handler.leave_entries();
}

}  // namespace

void read_spdk_trace(std::FILE* file, const std::string& name, TraceSink& sink)
{
    BlockInput in(fileno(file), name);
    EntryBuilder entry(sink, in);
    SaxHandler handler(entry, in);
    FastEntryReader fast(entry);
    rapidjson::Reader reader;
    // rapidjson reads everything but the entries; after each "entries" array
    // it resumes the top-level object through a prefix that reopens it.
    static constexpr std::string_view kReopen = "{\"\":0";
    bool resumed = false;
    for (;;) {
        BlockStream stream(in, kMaxOtherBytes, resumed ? kReopen : std::string_view());
        const auto result = reader.Parse<rapidjson::kParseNoFlags>(stream, handler);
        if (handler.take_at_entries()) {
            read_entries(in, handler, fast, reader, name);
            handler.resume_top_level();
            resumed = true;
            continue;
        }
        if (result.IsError() && stream.over_limit())
            throw Error(Exit::dataerr, name + ": byte " + std::to_string(in.tell()) +
                                           ": more than 1 GiB outside \"entries\" (not spdk_trace output?)");
        if (result.IsError())
            throw_parse_error(name, handler, result, in);
        return;
    }
}

}  // namespace kdelay
