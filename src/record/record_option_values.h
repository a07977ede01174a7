// kdelay record's option values, as parsed (-p, shared, is the target).
#pragma once

#include <string>
#include <vector>

namespace kdelay {

struct RecordOptions {
    std::vector<std::string> probe_files;  // --probes; none: the embedded SPDK set
    std::string output;                    // -o; "": stdout
};

}  // namespace kdelay
