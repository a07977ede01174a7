// Writers for annotated SPDK trace entries: trace.py's text layout, byte for
// byte (but for a string with control characters or bytes that are not
// UTF-8: escaped, as in every kdelay report), or JSON Lines. Both buffer
// and write to a FILE*.
#pragma once

#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "annotate/annotator.h"
#include "annotate/spdk_trace.h"

namespace kdelay {

class TraceWriter {
public:
    explicit TraceWriter(std::FILE* out) : out_(out) {}
    virtual ~TraceWriter() = default;
    virtual void header(const TraceHeader& header) { header_ = &header; }
    virtual void entry(const TraceEntry& entry, const std::vector<NamedArg>& args) = 0;
    // Throws Error(Exit::ioerr) when the output cannot be written.
    void flush();

protected:
    void end_line();  // writes out the buffer once it is large
    void write_out();
    // The first entry's TSC: timestamps count from it, as in trace.py.
    uint64_t base_tsc(const TraceEntry& e)
    {
        if (!has_base_) {
            base_ = e.tsc;
            has_base_ = true;
        }
        return base_;
    }
    // The poller column: "poller", else (SPDK >= 26.05) the owner's description.
    std::string_view poller(const TraceEntry& e) const;

    std::FILE* out_;
    fmt::memory_buffer buf_;
    const TraceHeader* header_ = nullptr;

private:
    bool has_base_ = false;
    uint64_t base_ = 0;
};

// trace.py's Trace.print():
// '{:3} {:16.3f} {:3} {:24} {:12}' lcore, µs, poller, name, "size: N"
// then "id: ID (RELATED) ", "time: µs ", args; trailing whitespace stripped.
class TraceTextWriter : public TraceWriter {
public:
    using TraceWriter::TraceWriter;
    void header(const TraceHeader& header) override;
    void entry(const TraceEntry& entry, const std::vector<NamedArg>& args) override;

private:
    static constexpr size_t kNameWidth = 24;
    std::vector<std::string> names_;  // per tpoint: its name, printable()
    std::vector<size_t> name_pad_;    // per tpoint: spaces after its name
};

// One {"type": "spdk_entry", ...} object per entry (docs/json.md), written
// with rapidjson's streaming writer: nlohmann's DOM per entry managed only a
// quarter of a million entries a second.
class TraceJsonWriter : public TraceWriter {
public:
    using TraceWriter::TraceWriter;
    void entry(const TraceEntry& entry, const std::vector<NamedArg>& args) override;

private:
    std::unordered_map<const ObjectProperties*, std::string> annotations_;  // rendered JSON
    std::string scratch_;
};

// Python's str.rstrip(): the length of s without trailing Unicode whitespace.
size_t python_rstrip(std::string_view s);

}  // namespace kdelay
