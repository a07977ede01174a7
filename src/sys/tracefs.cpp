#include "sys/tracefs.h"

#include <cerrno>
#include <cstring>
#include <sys/mount.h>
#include <unistd.h>

#include "core/error.h"

namespace kdelay {

namespace {
const char* const kTracefs = "/sys/kernel/tracing";
}

bool mount_tracefs()
{
    const std::string events = std::string(kTracefs) + "/events";
    if (access(events.c_str(), F_OK) == 0)
        return true;
    return mount("tracefs", kTracefs, "tracefs", 0, nullptr) == 0 || errno == EBUSY;
}

std::string tracefs_dir()
{
    if (!mount_tracefs())
        throw Error(Exit::osfile, std::string("cannot mount tracefs at ") + kTracefs + ": " +
                                      strerror(errno));
    return kTracefs;
}

bool tracepoint_exists(const std::string& system, const std::string& event)
{
    return access((tracefs_dir() + "/events/" + system + "/" + event + "/id").c_str(), F_OK) == 0;
}

bool tracepoint_exists(const std::string& system_event)
{
    const auto colon = system_event.find(':');
    return colon != std::string::npos &&
           tracepoint_exists(system_event.substr(0, colon), system_event.substr(colon + 1));
}

bool kprobes_available()
{
    return access((tracefs_dir() + "/kprobe_events").c_str(), F_OK) == 0;
}

}  // namespace kdelay
