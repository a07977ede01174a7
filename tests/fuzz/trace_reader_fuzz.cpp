// annotate's reader of spdk_trace -j output, both schemas, and its text
// writer: every entry the reader passes on is read whole (so that the
// sanitizers see each byte it keeps) and written as trace.py's line, which
// must be one line, valid UTF-8 with no control character, whatever names
// and strings the trace holds.
#include <algorithm>
#include <cstdlib>

#include "annotate/annotator.h"
#include "annotate/trace_reader.h"
#include "annotate/trace_writer.h"
#include "core/error.h"
#include "fuzz_input.h"

namespace {

struct Reader : kdelay::TraceSink {
    explicit Reader(std::FILE* out) : writer(out) {}
    kdelay::TraceEntry slot;
    size_t seen = 0, written = 0;
    kdelay::EntryAnnotator annotator{{}};
    kdelay::TraceTextWriter writer;
    void header(const kdelay::TraceHeader& h) override
    {
        seen += h.tpoints.size();
        annotator.prepare(h);
        writer.header(h);
    }
    kdelay::TraceEntry& next_entry() override { return slot; }
    void entry(kdelay::TraceEntry& e) override
    {
        seen += e.tpoint ? e.tpoint->name.size() : 0;
        seen += e.poller.size() + e.owner.size() + e.object_id.size() + e.related.size();
        for (size_t i = 0; i < e.arg_count; ++i)
            seen += e.args[i].is_string ? e.args[i].text.size() : 1;
        writer.entry(e, annotator.args(e));
        ++written;
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    kdfuzz::use_utf8();
    kdfuzz::MemoryFile in(data, size);
    if (!in.get())
        return 0;
    char* text = nullptr;
    size_t length = 0;
    std::FILE* out = open_memstream(&text, &length);
    if (!out)
        std::abort();
    size_t written = 0;
    {
        Reader sink(out);
        try {
            // A refusal, the reader's or the writer's (a pointer that holds
            // a string), ends the entries before a line of it is written.
            kdelay::read_spdk_trace(in.get(), "fuzz.json", sink);
        } catch (const kdelay::Error&) {
        }
        written = sink.written;
        sink.writer.flush();
    }
    std::fclose(out);
    const std::string lines(text, length);
    std::free(text);
    kdfuzz::check_printable(lines);
    if (static_cast<size_t>(std::count(lines.begin(), lines.end(), '\n')) != written)
        std::abort();  // a name or string added a line
    return 0;
}
