// Probe-set files (the probes of a delay program) and record's probe files.
#include "loader/probe_set.h"
#include "core/error.h"
#include "fuzz_input.h"
#include "record/record_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string json = kdfuzz::text(data, size);
    try {
        kdelay::parse_probe_set("fuzz.json", json);
    } catch (const kdelay::Error&) {
    }
    try {
        kdelay::parse_record_set("fuzz.json", json);
    } catch (const kdelay::Error&) {
    }
    return 0;
}
