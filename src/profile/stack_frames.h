// Stacks of the stack_traces map made into frames ("function+0xoff
// [module]"), by a process's symbol cache.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kdelay {

class MapIo;
class Symbolizer;

// The frames of a kernel and a user stack of stack_traces (ids < 0: none),
// kernel frames first, each innermost first, without kdelay's own.
std::vector<std::string> stack_frames(MapIo& maps, Symbolizer& symbols, int kernel_stack, int user_stack);
// As above, with the user stack's addresses given (an unwound stack).
std::vector<std::string> stack_frames(MapIo& maps, Symbolizer& symbols, int kernel_stack,
                                      const std::vector<uint64_t>& user_pcs);

}  // namespace kdelay
