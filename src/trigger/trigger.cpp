#include "trigger/trigger.h"

#include <regex>
#include <vector>

#include "core/error.h"

namespace kdelay {
namespace {

const size_t kMaxTrigger = 1024;

// s cut to 80 bytes, so the error stays one line of a screen; escaped
// once, where kdelay prints errors (app/app.cpp).
std::string cut(const std::string& s) { return s.size() > 80 ? s.substr(0, 80) + "..." : s; }

[[noreturn]] void reject(const std::string& text, const std::string& why)
{
    throw Error(Exit::config, "invalid trigger '" + cut(text) + "': " + cut(why));
}

bool matches(const std::string& s, const std::regex& re) { return std::regex_match(s, re); }

// What each part of a trigger may hold. Kernel and ELF symbols also carry
// dots (foo.isra.0; memcpy@@GLIBC_2.14 is not accepted).
struct Grammar {
    std::regex identifier{"[A-Za-z_][A-Za-z0-9_]{0,127}"};
    std::regex symbol{"[A-Za-z_][A-Za-z0-9_.]{0,511}"};
    std::regex library{"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}"};
    std::regex path{"/[A-Za-z0-9_./+@-]{1,4095}"};
};

const Grammar& grammar()
{
    static const Grammar g;
    return g;
}

std::vector<std::string> split(const std::string& s)
{
    std::vector<std::string> parts;
    size_t start = 0;
    for (;;) {
        size_t colon = s.find(':', start);
        parts.push_back(s.substr(start, colon - start));
        if (colon == std::string::npos)
            return parts;
        start = colon + 1;
    }
}

}  // namespace

std::string Trigger::describe() const
{
    switch (kind) {
    case Kind::usdt: return "usdt:" + provider + ":" + probe;
    case Kind::tracepoint: return "trace:" + system + ":" + event;
    case Kind::kprobe: return "kprobe:" + function;
    case Kind::kretprobe: return "kretprobe:" + function;
    case Kind::uprobe: return "uprobe:" + (object.empty() ? "" : object + ":") + function;
    case Kind::uretprobe: return "uretprobe:" + (object.empty() ? "" : object + ":") + function;
    }
    return text;
}

Trigger parse_trigger(const std::string& text)
{
    if (text.empty())
        reject(text, "empty");
    if (text.size() > kMaxTrigger)
        reject(text, "longer than " + std::to_string(kMaxTrigger) + " characters");
    const auto parts = split(text);
    if (parts.size() < 2)
        reject(text, "expected TYPE:ARGS, e.g. u:provider:probe");

    Trigger t{};
    t.text = text;
    const std::string& type = parts[0];
    auto want = [&](size_t n, const char* form) {
        if (parts.size() != n)
            reject(text, std::string("expected ") + form);
    };
    auto check = [&](const std::string& value, const std::regex& re, const char* what) {
        if (!matches(value, re))
            reject(text, std::string("bad ") + what + " '" + cut(value) + "'");
    };

    // TYPE:A:B with two identifiers (a USDT probe, a tracepoint).
    auto two_names = [&](Trigger::Kind kind, const char* form, const char* what_a, std::string& a,
                         const char* what_b, std::string& b) {
        t.kind = kind;
        want(3, form);
        check(parts[1], grammar().identifier, what_a);
        check(parts[2], grammar().identifier, what_b);
        a = parts[1];
        b = parts[2];
    };

    if (type == "u" || type == "usdt") {
        two_names(Trigger::Kind::usdt, "u|usdt:PROVIDER:PROBE", "USDT provider", t.provider, "USDT probe", t.probe);
    } else if (type == "t" || type == "trace") {
        two_names(Trigger::Kind::tracepoint, "t|trace:SYSTEM:EVENT", "tracepoint system", t.system,
                  "tracepoint event", t.event);
    } else if (type == "k" || type == "kprobe" || type == "kr" || type == "kretprobe") {
        t.kind = type[1] == 'r' ? Trigger::Kind::kretprobe : Trigger::Kind::kprobe;
        want(2, "k|kprobe:FUNC or kr|kretprobe:FUNC");
        check(parts[1], grammar().symbol, "kernel function");
        t.function = parts[1];
    } else if (type == "up" || type == "uprobe" || type == "ur" || type == "upr" ||
               type == "uretprobe") {
        t.kind = (type == "up" || type == "uprobe") ? Trigger::Kind::uprobe
                                                     : Trigger::Kind::uretprobe;
        if (parts.size() != 2 && parts.size() != 3)
            reject(text, "expected up|uprobe:[LIB:|/path:]FUNC");
        if (parts.size() == 3) {
            const std::string& obj = parts[1];
            if (obj.empty() || !(obj[0] == '/' ? matches(obj, grammar().path) : matches(obj, grammar().library)))
                reject(text, "bad object '" + cut(obj) + "': give a library name or an absolute path");
            if (obj.find("/../") != std::string::npos || obj.find("//") != std::string::npos)
                reject(text, "bad object path '" + cut(obj) + "'");
            t.object = obj;
        }
        check(parts.back(), grammar().symbol, "function");
        t.function = parts.back();
    } else {
        reject(text, "unknown type '" + cut(type) + "'; use u, t, k, kr, up or ur");
    }
    return t;
}

}  // namespace kdelay
