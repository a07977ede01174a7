#include "profile/stack_frames.h"

#include "loader/map_io.h"
#include "loader/symbolizer.h"

namespace kdelay {

std::vector<std::string> stack_frames(MapIo& maps, Symbolizer& symbols, int kernel_stack, int user_stack)
{
    return stack_frames(maps, symbols, kernel_stack, maps.stack("stack_traces", user_stack));
}

std::vector<std::string> stack_frames(MapIo& maps, Symbolizer& symbols, int kernel_stack,
                                      const std::vector<uint64_t>& user_pcs)
{
    std::vector<std::string> frames;
    for (uint64_t addr : maps.stack("stack_traces", kernel_stack)) {
        std::string frame = symbols.kernel(addr);
        // The stack starts inside kdelay's own program.
        if (frames.empty() && is_tracer_frame(frame))
            continue;
        frames.push_back(std::move(frame));
    }
    for (uint64_t addr : user_pcs)
        frames.push_back(symbols.user(addr));
    return frames;
}

}  // namespace kdelay
