// The trigger grammar. What it accepts only names things to attach to; the
// names must be what the grammar allows, never text that could end a
// string or a line.
#include <cstdlib>

#include "core/error.h"
#include "fuzz_input.h"
#include "trigger/trigger.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    try {
        const kdelay::Trigger t = kdelay::parse_trigger(kdfuzz::text(data, size));
        for (const std::string* part : {&t.provider, &t.probe, &t.system, &t.event, &t.function, &t.object})
            for (char c : *part)
                if (static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\' || c == 0x7f)
                    std::abort();
        (void)t.describe();
    } catch (const kdelay::Error&) {
    }
    return 0;
}
