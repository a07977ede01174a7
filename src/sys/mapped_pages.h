// The pages of this process's own mappings: letting go of the ones that
// BCC's compiler needed and will not need again.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace kdelay {

// Unmaps the clean pages of every read-only mapping of a file whose path
// contains one of names. A mapping with any page written (a library's
// relocated RELRO segment) is left whole. The page cache keeps the pages,
// so one needed again comes back by a minor fault. Returns the bytes that
// were resident. Any error leaves the mappings as they were.
std::size_t unmap_clean_pages_of(const std::vector<std::string>& names);

// The libraries only BCC's compile runs: LLVM and clang, about 80 MB of
// resident text that the traced process's tracer would otherwise carry.
const std::vector<std::string>& compiler_libraries();

}  // namespace kdelay
