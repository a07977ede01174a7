// kdelay biosnoop's option values, as parsed (-p, shared, also filters it).
#pragma once

#include <string>

namespace kdelay {

struct BiosnoopOptions {
    bool queue = false;  // -Q
    std::string disk;    // -d; "": every disk
    double duration = 0;  // seconds; 0: until Ctrl-C
};

}  // namespace kdelay
