#include "annotate/trace_reader.h"

#include <rapidjson/error/en.h>
#include <rapidjson/filereadstream.h>
#include <rapidjson/reader.h>

#include <string_view>
#include <unordered_map>

#include "core/error.h"

namespace kdelay {
namespace {

constexpr unsigned kMaxDepth = 64;     // deeper input is hostile: the parser recurses
constexpr size_t kMaxArgs = 4096;      // SPDK entries carry at most 8
constexpr uint64_t kSmallIds = 65536;  // ids below this are looked up in a vector

enum class State { document, root, tpoints, tpoint, tpoint_args, tpoint_arg, owners, owner, entries, entry, object, entry_args };

enum class Field {
    none, unknown,
    tsc_rate, tpoints, entries, owners,                        // top level
    name, id, new_object, args, type, description,             // definitions
    lcore, tpoint, tsc, poller, owner, size, object, related,  // entries
    time, value,                                               // entry.object
};

enum Seen : unsigned { seen_lcore = 1, seen_tpoint = 2, seen_tsc = 4, seen_name = 8, seen_id = 16, seen_type = 32 };

Field key_in(State s, std::string_view k)
{
    switch (s) {
    case State::root:
        if (k == "tsc_rate") return Field::tsc_rate;
        if (k == "tpoints") return Field::tpoints;
        if (k == "entries") return Field::entries;
        if (k == "owners") return Field::owners;
        break;
    case State::tpoint:
        if (k == "name") return Field::name;
        if (k == "id") return Field::id;
        if (k == "new_object") return Field::new_object;
        if (k == "args") return Field::args;
        break;
    case State::tpoint_arg:
        if (k == "name") return Field::name;
        if (k == "type") return Field::type;
        break;
    case State::owner:
        if (k == "description") return Field::description;
        break;
    case State::entry:
        if (k == "lcore") return Field::lcore;
        if (k == "tpoint") return Field::tpoint;
        if (k == "tsc") return Field::tsc;
        if (k == "poller") return Field::poller;
        if (k == "size") return Field::size;
        if (k == "object") return Field::object;
        if (k == "related") return Field::related;
        if (k == "args") return Field::args;
        if (k == "owner") return Field::owner;
        break;
    case State::object:
        if (k == "id") return Field::id;
        if (k == "time") return Field::time;
        if (k == "value") return Field::value;
        break;
    default:
        break;
    }
    return Field::unknown;
}

class Handler {
public:
    Handler(TraceSink& sink, const rapidjson::FileReadStream& stream) : sink_(sink), stream_(stream) {}

    const std::string& error() const { return error_; }
    uint64_t error_offset() const { return error_offset_; }

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
    bool Uint64(uint64_t u)
    {
        if (skipping())
            return true;
        switch (state()) {
        case State::root:
            if (key_ == Field::tsc_rate) {
                header_.tsc_rate = u;
                return true;
            }
            break;
        case State::tpoint:
            if (key_ == Field::id) {
                tpoint_.id = u;
                seen_ |= seen_id;
                return true;
            }
            break;
        case State::tpoint_arg:
            if (key_ == Field::type) {
                arg_.type = u;
                seen_ |= seen_type;
                return true;
            }
            break;
        case State::entry:
            switch (key_) {
            case Field::lcore: entry_.lcore = u; seen_ |= seen_lcore; return true;
            case Field::tpoint: tpoint_id_ = u; seen_ |= seen_tpoint; return true;
            case Field::tsc: entry_.tsc = u; seen_ |= seen_tsc; return true;
            case Field::size: entry_.size = u; return true;
            case Field::owner: entry_.has_owner = true; entry_.owner = std::to_string(u); return true;
            default: break;
            }
            break;
        case State::object:
            if (key_ == Field::time) {
                entry_.has_time = true;
                entry_.time = u;
                return true;
            }
            if (key_ == Field::value) {
                entry_.has_value = true;
                entry_.value = u;
                return true;
            }
            break;
        case State::entry_args:
            if (TraceArg* a = next_arg()) {
                a->is_string = false;
                a->integer = u;
                return true;
            }
            return false;
        default:
            break;
        }
        return scalar_type_error("a number");
    }
    bool Double(double)
    {
        if (skipping() || key_ == Field::unknown)
            return true;
        return fail_here("expected an unsigned 64-bit integer, found a fraction or a number out of range");
    }
    bool RawNumber(const char*, rapidjson::SizeType, bool) { return fail_here("raw numbers are not read"); }
    bool String(const char* s, rapidjson::SizeType n, bool)
    {
        if (skipping())
            return true;
        switch (state()) {
        case State::tpoint:
            if (key_ == Field::name) {
                tpoint_.name.assign(s, n);
                seen_ |= seen_name;
                return true;
            }
            break;
        case State::tpoint_arg:
            if (key_ == Field::name) {
                arg_.name.assign(s, n);
                seen_ |= seen_name;
                return true;
            }
            break;
        case State::owners:
            header_.owners[owner_key_].assign(s, n);
            return true;
        case State::owner:
            if (key_ == Field::description) {
                header_.owners[owner_key_].assign(s, n);
                return true;
            }
            break;
        case State::entry:
            switch (key_) {
            case Field::poller: entry_.has_poller = true; entry_.poller.assign(s, n); return true;
            case Field::related: entry_.has_related = true; entry_.related.assign(s, n); return true;
            case Field::owner: entry_.has_owner = true; entry_.owner.assign(s, n); return true;
            default: break;
            }
            break;
        case State::object:
            if (key_ == Field::id) {
                entry_.has_object_id = true;
                entry_.object_id.assign(s, n);
                return true;
            }
            break;
        case State::entry_args:
            if (TraceArg* a = next_arg()) {
                a->is_string = true;
                a->text.assign(s, n);
                return true;
            }
            return false;
        default:
            break;
        }
        return scalar_type_error("a string");
    }

    bool StartObject()
    {
        if (!enter())
            return false;
        if (skipping())
            return true;
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
            begin_entry();
            return push(State::entry);
        case State::entry:
            if (key_ == Field::object) {
                entry_.has_object = true;
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
    bool EndObject(rapidjson::SizeType)
    {
        --depth_;
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        const State done = state();
        stack_.pop_back();
        key_ = Field::none;
        switch (done) {
        case State::tpoint:
            return end_tpoint();
        case State::tpoint_arg:
            if ((seen_ & (seen_name | seen_type)) != (seen_name | seen_type))
                return fail_here("a tpoint argument needs \"name\" and \"type\"");
            tpoint_.args.push_back(std::move(arg_));
            return true;
        case State::entry:
            return end_entry();
        default:
            return true;
        }
    }
    bool StartArray()
    {
        if (!enter())
            return false;
        if (skipping())
            return true;
        switch (state()) {
        case State::root:
            if (key_ == Field::tpoints && !in_entries_)
                return push(State::tpoints);
            if (key_ == Field::entries) {
                start_entries();
                return push(State::entries);
            }
            break;
        case State::tpoint:
            if (key_ == Field::args) {
                saved_seen_ = seen_;
                return push(State::tpoint_args);
            }
            break;
        case State::entry:
            if (key_ == Field::args) {
                entry_.arg_count = 0;
                return push(State::entry_args);
            }
            break;
        default:
            break;
        }
        return container_type_error("an array");
    }
    bool EndArray(rapidjson::SizeType)
    {
        --depth_;
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        const State done = state();
        stack_.pop_back();
        key_ = Field::none;
        if (done == State::tpoints)
            index_tpoints();
        if (done == State::tpoint_args)
            seen_ = saved_seen_;
        return true;
    }

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

    bool fail_here(const std::string& why) { return fail_at(stream_.Tell(), why); }
    bool fail_at(uint64_t offset, const std::string& why)
    {
        error_ = why;
        error_offset_ = offset;
        return false;
    }
    std::string where() const
    {
        switch (state()) {
        case State::root: return "at the top level";
        case State::tpoints: case State::tpoint: case State::tpoint_args: case State::tpoint_arg:
            return "in a tpoint definition";
        case State::owners: case State::owner: return "in \"owners\"";
        case State::entries: return "in \"entries\"";
        case State::entry: case State::object: case State::entry_args:
            return "in entry " + std::to_string(entry_.index);
        default: return "";
        }
    }
    bool scalar_type_error(const char* found)
    {
        if (key_ == Field::unknown)
            return true;  // a value trace.py does not read either
        if (state() == State::document)
            return fail_here("the input is not a JSON object");
        return fail_here(std::string("unexpected ") + found + " " + where());
    }
    bool container_type_error(const char* found)
    {
        if (state() == State::document)
            return fail_here("the input is not a JSON object");
        return fail_here(std::string("unexpected ") + found + " " + where());
    }
    bool negative()
    {
        if (skipping() || key_ == Field::unknown)
            return true;
        return fail_here("expected an unsigned 64-bit integer, found a negative number " + where());
    }

    TraceArg* next_arg()
    {
        if (entry_.arg_count >= kMaxArgs) {
            fail_here("entry " + std::to_string(entry_.index) + " has more than " + std::to_string(kMaxArgs) +
                      " args");
            return nullptr;
        }
        if (entry_.args.size() <= entry_.arg_count)
            entry_.args.emplace_back();
        return &entry_.args[entry_.arg_count++];
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
    void index_tpoints()
    {
        by_small_id_.clear();
        by_id_.clear();
        for (const auto& t : header_.tpoints) {
            if (t.id < kSmallIds) {
                if (by_small_id_.size() <= t.id)
                    by_small_id_.resize(t.id + 1, nullptr);
                by_small_id_[t.id] = &t;
            } else {
                by_id_[t.id] = &t;
            }
        }
    }
    const Tpoint* find_tpoint(uint64_t id) const
    {
        if (id < by_small_id_.size())
            return by_small_id_[id];
        const auto it = by_id_.find(id);
        return it == by_id_.end() ? nullptr : it->second;
    }
    void start_entries()
    {
        if (!in_entries_) {
            in_entries_ = true;
            index_tpoints();
            sink_.header(header_);
        }
    }
    void begin_entry()
    {
        entry_.offset = stream_.Tell() - 1;
        entry_.tpoint = nullptr;
        entry_.has_poller = entry_.has_owner = entry_.has_object = entry_.has_object_id = false;
        entry_.has_time = entry_.has_value = entry_.has_related = false;
        entry_.size = 0;
        entry_.arg_count = 0;
        seen_ = 0;
    }
    bool end_entry()
    {
        const uint64_t at = entry_.offset;
        const std::string which = "entry " + std::to_string(entry_.index) + ": ";
        if (!(seen_ & seen_lcore) || !(seen_ & seen_tpoint) || !(seen_ & seen_tsc))
            return fail_at(at, which + "needs \"lcore\", \"tpoint\" and \"tsc\"");
        entry_.tpoint = find_tpoint(tpoint_id_);
        if (!entry_.tpoint)
            return fail_at(at, which + "unknown tpoint id " + std::to_string(tpoint_id_) +
                                   " (not in \"tpoints\" before \"entries\")");
        if (header_.tsc_rate == 0)
            return fail_at(at, which + "\"tsc_rate\" is missing or 0 before \"entries\"");
        const auto& defs = entry_.tpoint->args;
        for (size_t i = 0; i < entry_.arg_count && i < defs.size(); ++i) {
            const bool want_string = defs[i].type == static_cast<uint64_t>(TpointArgType::string);
            const bool want_integer = defs[i].type == static_cast<uint64_t>(TpointArgType::integer) ||
                                      defs[i].type == static_cast<uint64_t>(TpointArgType::pointer);
            if ((want_string && !entry_.args[i].is_string) || (want_integer && entry_.args[i].is_string))
                return fail_at(at, which + "arg " + std::to_string(i) + " (" + defs[i].name + ") of " +
                                       entry_.tpoint->name + " should be " +
                                       (want_string ? "a string" : "an integer"));
        }
        sink_.entry(entry_);
        ++entry_.index;
        return true;
    }

    TraceSink& sink_;
    const rapidjson::FileReadStream& stream_;
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
    std::vector<const Tpoint*> by_small_id_;
    std::unordered_map<uint64_t, const Tpoint*> by_id_;
    uint64_t tpoint_id_ = 0;
    TraceEntry entry_;
    std::string error_;
    uint64_t error_offset_ = 0;
};

}  // namespace

void read_spdk_trace(std::FILE* in, const std::string& name, TraceSink& sink)
{
    std::vector<char> buffer(1 << 20);
    rapidjson::FileReadStream stream(in, buffer.data(), buffer.size());
    Handler handler(sink, stream);
    rapidjson::Reader reader;
    const auto result = reader.Parse<rapidjson::kParseNoFlags>(stream, handler);
    if (std::ferror(in))
        throw Error(Exit::ioerr, name + ": read error");
    if (result.IsError()) {
        if (!handler.error().empty())
            throw Error(Exit::dataerr, name + ": byte " + std::to_string(handler.error_offset()) + ": " +
                                           handler.error());
        throw Error(Exit::dataerr, name + ": byte " + std::to_string(result.Offset()) + ": invalid JSON: " +
                                       rapidjson::GetParseError_En(result.Code()));
    }
}

}  // namespace kdelay
