#include "sys/systemd.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"

namespace kdelay {
namespace {

uint64_t monotonic_usec()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000 + static_cast<uint64_t>(ts.tv_nsec) / 1000;
}

}  // namespace

bool stdout_is_journal()
{
    const char* stream = getenv("JOURNAL_STREAM");
    struct stat st {};
    if (!stream || fstat(STDOUT_FILENO, &st) != 0)
        return false;
    unsigned long long dev = 0, ino = 0;
    char end = 0;
    if (sscanf(stream, "%llu:%llu%c", &dev, &ino, &end) != 2)
        return false;
    return static_cast<unsigned long long>(st.st_dev) == dev && static_cast<unsigned long long>(st.st_ino) == ino;
}

void journal_send(const JournalFields& fields)
{
    std::vector<std::string> items;
    items.reserve(fields.size());
    for (const auto& [name, value] : fields)
        items.push_back(name + "=" + value);
    std::vector<iovec> iov;
    iov.reserve(items.size());
    for (std::string& item : items)
        iov.push_back(iovec{item.data(), item.size()});
    if (const int r = sd_journal_sendv(iov.data(), static_cast<int>(iov.size())); r < 0)
        throw Error(Exit::ioerr, std::string("cannot write to the journal: ") + strerror(-r));
}

ServiceNotifier::ServiceNotifier()
{
    enabled_ = getenv("NOTIFY_SOCKET") != nullptr;
    uint64_t usec = 0;
    if (enabled_ && sd_watchdog_enabled(0, &usec) > 0)
        watchdog_usec_ = usec;
}

void ServiceNotifier::ready(const std::string& status)
{
    if (enabled_)
        sd_notify(0, ("READY=1\nSTATUS=" + status).c_str());
    last_usec_ = monotonic_usec();
}

void ServiceNotifier::status(const std::string& status)
{
    if (enabled_)
        sd_notify(0, ("STATUS=" + status).c_str());
}

void ServiceNotifier::keep_alive()
{
    if (!watchdog_usec_)
        return;
    const uint64_t now = monotonic_usec();
    if (now - last_usec_ < watchdog_usec_ / 2)
        return;
    sd_notify(0, "WATCHDOG=1");
    last_usec_ = now;
}

}  // namespace kdelay
