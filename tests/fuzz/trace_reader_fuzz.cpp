// annotate's reader of spdk_trace -j output, both schemas: every entry it
// passes on is read whole, so that the sanitizers see each byte it keeps.
#include "annotate/trace_reader.h"
#include "core/error.h"
#include "fuzz_input.h"

namespace {

struct Reader : kdelay::TraceSink {
    kdelay::TraceEntry slot;
    size_t seen = 0;
    void header(const kdelay::TraceHeader& h) override { seen += h.tpoints.size(); }
    kdelay::TraceEntry& next_entry() override { return slot; }
    void entry(kdelay::TraceEntry& e) override
    {
        seen += e.tpoint ? e.tpoint->name.size() : 0;
        seen += e.poller.size() + e.owner.size() + e.object_id.size() + e.related.size();
        for (size_t i = 0; i < e.arg_count; ++i)
            seen += e.args[i].is_string ? e.args[i].text.size() : 1;
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    kdfuzz::MemoryFile in(data, size);
    if (!in.get())
        return 0;
    Reader sink;
    try {
        kdelay::read_spdk_trace(in.get(), "fuzz.json", sink);
    } catch (const kdelay::Error&) {
    }
    return 0;
}
