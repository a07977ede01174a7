#include "sys/mapped_pages.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <sstream>
#include <sys/mman.h>

#include "sys/process.h"

namespace kdelay {

namespace {

struct Mapping {
    std::uintptr_t start = 0, end = 0;
    bool writable = false, matches = false;
    std::size_t rss_kb = 0, anonymous_kb = 0;
};

// The mappings of /proc/self/smaps, with the two counts this needs.
std::vector<Mapping> own_mappings(const std::vector<std::string>& names)
{
    std::vector<Mapping> mappings;
    std::istringstream smaps(read_file("/proc/self/smaps"));
    std::string line;
    while (std::getline(smaps, line)) {
        Mapping m;
        char perms[8] = {};
        int path_at = 0;
        if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %*s %n", &m.start, &m.end, perms,
                        &path_at) == 3) {
            const std::string path = path_at > 0 ? line.substr(static_cast<std::size_t>(path_at)) : "";
            m.writable = perms[1] == 'w';
            m.matches = !path.empty() && std::any_of(names.begin(), names.end(), [&](const std::string& n) {
                return path.find(n) != std::string::npos;
            });
            mappings.push_back(m);
            continue;
        }
        if (mappings.empty())
            continue;
        std::size_t kb = 0;
        if (std::sscanf(line.c_str(), "Rss: %zu kB", &kb) == 1)
            mappings.back().rss_kb = kb;
        else if (std::sscanf(line.c_str(), "Anonymous: %zu kB", &kb) == 1)
            mappings.back().anonymous_kb = kb;
    }
    return mappings;
}

}  // namespace

std::size_t unmap_clean_pages_of(const std::vector<std::string>& names)
{
    std::vector<Mapping> mappings;
    try {
        mappings = own_mappings(names);
    } catch (const std::exception&) {
        return 0;  // no /proc: the pages stay, which costs memory, not correctness
    }
    std::size_t unmapped = 0;
    for (const auto& m : mappings) {
        // A written page of a private mapping exists only here: dropping
        // it would bring back the file's unrelocated bytes.
        if (!m.matches || m.writable || m.anonymous_kb != 0 || m.rss_kb == 0)
            continue;
        if (madvise(reinterpret_cast<void*>(m.start), m.end - m.start, MADV_DONTNEED) == 0)
            unmapped += m.rss_kb * 1024;
    }
    return unmapped;
}

const std::vector<std::string>& compiler_libraries()
{
    static const std::vector<std::string> names{"/libLLVM", "/libclang-cpp"};
    return names;
}

}  // namespace kdelay
