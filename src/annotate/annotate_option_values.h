// kdelay annotate's option values, as parsed.
#pragma once

#include <string>
#include <vector>

namespace kdelay {

struct AnnotateOptions {
    std::string input;                     // -i; "": stdin
    std::string records;                   // -b; "": none
    std::vector<std::string> probe_files;  // --probes: how the records annotate
    bool only_listed = false;              // --only-listed-tpoints
};

}  // namespace kdelay
