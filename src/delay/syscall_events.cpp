#include "delay/syscall_events.h"

#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "loader/map_io.h"
#include "loader/symbolizer.h"
#include "profile/stack_frames.h"
#include "delay/map_readers.h"
#include "report/format.h"
#include "sys/syscall_names.h"

namespace kdelay {

std::vector<SyscallEvent> resolve_events(const std::deque<kd_event>& pending, MapIo& maps, bool stack_traces,
                                         const PidMap& ids)
{
    std::vector<SyscallEvent> events;
    events.reserve(pending.size());
    std::map<pid_t, std::unique_ptr<Symbolizer>> symbolizers;  // by process: user frames are its own
    std::map<uint32_t, std::string> names;
    for (const kd_event& e : pending) {
        auto name = names.try_emplace(e.nr);
        if (name.second)
            name.first->second = syscall_name(e.nr);
        SyscallEvent ev{e.entry_ns, e.exit_ns, e.tid, e.tgid, bounded(e.comm),
                        e.nr, name.first->second, {}, false,
                        e.waker_kind == KD_WAKER_NONE
                            ? ""
                            : waker_label(waker_kind(e.waker_kind), bounded(e.waker_comm),
                                          e.waker_pid, e.waker_tid)};
        if (stack_traces) {
            auto& made = symbolizers[static_cast<pid_t>(e.tgid)];
            if (!made)
                made = std::make_unique<Symbolizer>(static_cast<pid_t>(ids.local(e.tgid)));
            Symbolizer& symbols = *made;
            ev.stack_lost = e.kernel_stack < 0 || e.user_stack < 0;
            ev.frames = stack_frames(maps, symbols, e.kernel_stack, e.user_stack);
        }
        events.push_back(std::move(ev));
    }
    return events;
}

}  // namespace kdelay
