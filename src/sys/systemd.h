// What kdelay says to systemd when it runs as a service: journal entries
// with fields (libsystemd's native protocol, so values may hold any byte),
// and the service manager's notifications (READY=1, WATCHDOG=1, STATUS=).
// Outside systemd each call does nothing.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kdelay {

// Whether stdout is a stream to the journal: systemd sets $JOURNAL_STREAM
// to its device and inode (systemd.exec(5)).
bool stdout_is_journal();

// One journal entry of fields, each NAME=value; MESSAGE is one of them.
// Throws Error(Exit::ioerr) when journald refuses it.
using JournalFields = std::vector<std::pair<std::string, std::string>>;
void journal_send(const JournalFields& fields);

// The service manager (Type=notify): READY=1 once, WATCHDOG=1 as often as
// it asks (only when it asks: WatchdogSec=), STATUS=text.
class ServiceNotifier {
public:
    ServiceNotifier();
    void ready(const std::string& status);
    void status(const std::string& status);
    // Sends WATCHDOG=1 when half the watchdog's time has passed since the last.
    void keep_alive();

private:
    bool enabled_ = false;
    uint64_t watchdog_usec_ = 0;
    uint64_t last_usec_ = 0;
};

}  // namespace kdelay
