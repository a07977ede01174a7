// record's output as annotate reads it back (trace.py's format), against
// the SPDK qpair probe set that kdelay ships.
#include "annotate/probe_records.h"
#include "core/error.h"
#include "fuzz_input.h"
#include "record/record_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static const kdelay::RecordSet set = kdelay::load_record_sets({});
    try {
        kdelay::parse_probe_records(kdfuzz::text(data, size), "fuzz.txt", set);
    } catch (const kdelay::Error&) {
    }
    return 0;
}
