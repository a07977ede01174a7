// Trigger strings (--start-trigger / --stop-trigger), parsed and checked
// against their grammar. Nothing from a trigger string ever enters eBPF
// source: it only names what to attach to.
#pragma once

#include <string>

namespace kdelay {

struct Trigger {
    enum class Kind { usdt, tracepoint, kprobe, kretprobe, uprobe, uretprobe };
    Kind kind;
    std::string text;      // as the user wrote it
    std::string provider;  // usdt
    std::string probe;     // usdt
    std::string system;    // tracepoint
    std::string event;     // tracepoint
    std::string object;    // uprobe: "" = the target's executable, a library name, or an absolute path
    std::string function;  // kprobe, uprobe

    // "usdt:PROVIDER:PROBE" and the like, normalised.
    std::string describe() const;
    // A USDT probe or uprobe: attached in processes, and fired by theirs
    // only; a tracepoint or kprobe fires for any task.
    bool in_processes() const
    {
        return kind == Kind::usdt || kind == Kind::uprobe || kind == Kind::uretprobe;
    }
};

// Parses TYPE:ARGS. The grammar:
//   u|usdt:PROVIDER:PROBE      t|trace:SYSTEM:EVENT
//   k|kprobe:FUNC              kr|kretprobe:FUNC
//   up|uprobe:[OBJECT:]FUNC    ur|upr|uretprobe:[OBJECT:]FUNC
// where OBJECT is a library name (c, libc.so.6) or an absolute path.
// Throws Error(Exit::config) with one line naming the fault.
Trigger parse_trigger(const std::string& text);

}  // namespace kdelay
