// Errors that end kdelay: one line for the user and a sysexits(3) code.
#pragma once

#include <stdexcept>
#include <string>

namespace kdelay {

// The sysexits(3) codes kdelay uses.
enum class Exit : int {
    ok = 0,
    usage = 64,        // EX_USAGE: bad option or argument
    dataerr = 65,      // EX_DATAERR
    noinput = 66,      // EX_NOINPUT: several candidate targets
    unavailable = 69,  // EX_UNAVAILABLE: no such process or command
    software = 70,     // EX_SOFTWARE: our eBPF failed to compile or load
    oserr = 71,        // EX_OSERR: attaching a probe failed
    osfile = 72,       // EX_OSFILE: a system file (kernel headers, BTF) is missing
    cantcreat = 73,    // EX_CANTCREAT: cannot write the output file
    ioerr = 74,        // EX_IOERR
    noperm = 77,       // EX_NOPERM: not root
    config = 78,       // EX_CONFIG: invalid trigger or configuration
};

class Error : public std::runtime_error {
public:
    Error(Exit code, const std::string& message)
        : std::runtime_error(message), code_(code) {}
    Exit code() const { return code_; }

private:
    Exit code_;
};


}  // namespace kdelay
