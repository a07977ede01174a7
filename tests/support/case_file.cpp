#include "case_file.h"

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <functional>
#include <csignal>
#include <nlohmann/json.hpp>
#include <seccomp.h>
#include <sstream>
#include <stdexcept>

namespace kdtest {
namespace {

using nlohmann::json;

std::vector<std::string> words(const std::string& s)
{
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string w; in >> w;)
        out.push_back(w);
    return out;
}

int signal_named(const std::string& name)
{
    static const std::pair<const char*, int> kSignals[] = {
        {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"STOP", SIGSTOP}, {"CONT", SIGCONT},
        {"INT", SIGINT},   {"TERM", SIGTERM}, {"KILL", SIGKILL}, {"HUP", SIGHUP}};
    for (const auto& [n, sig] : kSignals)
        if (name == n || name == std::string("SIG") + n)
            return sig;
    return 0;
}

std::chrono::milliseconds duration_of(const std::string& s)
{
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (!(v >= 0 && v <= 86400))  // NaN too: longer than a day is no test's
        throw std::invalid_argument("range");
    const std::string unit = s.substr(used);
    if (unit == "ms")
        return std::chrono::milliseconds(static_cast<long>(v));
    if (unit == "s" || unit.empty())
        return std::chrono::milliseconds(static_cast<long>(v * 1000));
    throw std::invalid_argument("unit");
}

// A value an expectation compares: a number, a string, or nothing there.
struct Value {
    enum class Kind { number, string, null, missing } kind = Kind::missing;
    double number = 0;
    std::string string;
    bool literal = false;  // the word `missing`: == and != then test presence
};

std::string show(const Value& v)
{
    switch (v.kind) {
    case Value::Kind::number: {
        std::ostringstream o;
        o.precision(15);
        o << v.number;
        return o.str();
    }
    case Value::Kind::string: return json(v.string).dump(-1, ' ', false, json::error_handler_t::replace);
    case Value::Kind::null: return "null";
    default: return "(missing)";
    }
}

Value from_json(const json* j)
{
    Value v;
    if (!j)
        return v;
    if (j->is_number()) {
        v.kind = Value::Kind::number;
        v.number = j->get<double>();
    } else if (j->is_string()) {
        v.kind = Value::Kind::string;
        v.string = j->get<std::string>();
    } else if (j->is_boolean()) {
        v.kind = Value::Kind::number;
        v.number = j->get<bool>() ? 1 : 0;
    } else if (j->is_null()) {
        v.kind = Value::Kind::null;
    } else if (j->is_array() || j->is_object()) {
        v.kind = Value::Kind::number;  // a container compares by its size
        v.number = static_cast<double>(j->size());
    }
    return v;
}

// kdelay's JSON Lines, split by type.
struct Report {
    std::vector<json> samples, markers, stalls;
    explicit Report(const std::string& out)
    {
        std::istringstream in(out);
        for (std::string l; std::getline(in, l);) {
            if (l.empty() || l[0] != '{')
                continue;
            json j = json::parse(l, nullptr, false);
            if (j.is_discarded() || !j.contains("type"))
                continue;
            if (j["type"] == "sample")
                samples.push_back(std::move(j));
            else if (j["type"] == "marker")
                markers.push_back(std::move(j));
            else if (j["type"] == "stall")
                stalls.push_back(std::move(j));
        }
    }
};

// Recursive descent over one expectation:
//   expect := sum OP sum | sum 'in' sum '..' sum | ('stdout'|'stderr') ('contains'|'lacks') STRING
//             (several joined by 'or': one must hold)
//   sum    := term (('+'|'-') term)*
//   term   := atom (('*'|'/') NUMBER)*
//   atom   := NUMBER | STRING | 'null' | 'missing' | 'exit' | 'samples' | 'stalls' | 'stderr_lines'
//           | 'workload' [N] '(' WORD NAME ')'  (the first workload's, or the Nth's)
//           | syscall_nr(NAME) | path
// An index written [*] stands for each sample's: the expectation is checked
// once per sample, with [*] replaced by 0, 1, ...
//   path   := ('sample' ['[' N ']'] | 'thread(' NAME [PID] ')' | 'marker(' KIND ')' ['[' N ']']
//              | 'stall(' NAME ')' ['[' N ']'])
//             ('.' KEY ['[' SEL ']'])*
//   SEL    := N | NAME (the element whose "name" is NAME) | FIELD=VALUE
class Evaluator {
public:
    Evaluator(const std::string& text, const CaseRun& run) : s_(text), run_(run), report_(run.out) {}

    std::string check()
    {
        skip_ws();
        if (word_ahead("stdout") || word_ahead("stderr")) {
            const bool out = take_word() == "stdout";
            const std::string op = take_word();
            if (op != "contains" && op != "lacks")
                fail("expected 'contains' or 'lacks'");
            const std::string needle = string_literal();
            end();
            const std::string& hay = out ? run_.out : run_.err;
            if ((hay.find(needle) != std::string::npos) == (op == "contains"))
                return "";
            return std::string(out ? "stdout" : "stderr") + (op == "contains" ? " does not contain " : " contains ") +
                   json(needle).dump(-1, ' ', false, json::error_handler_t::replace);
        }
        const Value left = sum();
        skip_ws();
        if (word_ahead("in")) {
            take_word();
            const Value lo = sum();
            skip_ws();
            if (s_.compare(i_, 2, "..") != 0)
                fail("expected '..'");
            i_ += 2;
            const Value hi = sum();
            end();
            if (left.kind == Value::Kind::number && lo.kind == Value::Kind::number &&
                hi.kind == Value::Kind::number && left.number >= lo.number && left.number <= hi.number)
                return "";
            return show(left) + " is not in " + show(lo) + ".." + show(hi);
        }
        const std::string op = comparison();
        const Value right = sum();
        end();
        return compare(left, op, right) ? "" : show(left) + " " + op + " " + show(right) + " is false";
    }

private:
    [[noreturn]] void fail(const std::string& why) const
    {
        throw std::runtime_error(why + " at column " + std::to_string(i_ + 1) + " of: " + s_);
    }
    void skip_ws()
    {
        while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_])))
            ++i_;
    }
    void end()
    {
        skip_ws();
        if (i_ != s_.size())
            fail("unexpected text");
    }
    bool word_ahead(const char* w) const
    {
        const std::string word(w);
        if (s_.compare(i_, word.size(), word) != 0)
            return false;
        const size_t after = i_ + word.size();
        return after == s_.size() || !(std::isalnum(static_cast<unsigned char>(s_[after])) || s_[after] == '_');
    }
    std::string take_word()
    {
        skip_ws();
        const size_t start = i_;
        while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_'))
            ++i_;
        if (start == i_)
            fail("expected a name");
        return s_.substr(start, i_ - start);
    }
    void expect_char(char c)
    {
        skip_ws();
        if (i_ >= s_.size() || s_[i_] != c)
            fail(std::string("expected '") + c + "'");
        ++i_;
    }
    // Raw text up to the closing character, trimmed.
    std::string until(char close)
    {
        const size_t at = s_.find(close, i_);
        if (at == std::string::npos)
            fail(std::string("no closing '") + close + "'");
        std::string t = s_.substr(i_, at - i_);
        i_ = at + 1;
        const auto a = t.find_first_not_of(' '), b = t.find_last_not_of(' ');
        return a == std::string::npos ? "" : t.substr(a, b - a + 1);
    }
    std::string string_literal()
    {
        skip_ws();
        if (i_ >= s_.size() || s_[i_] != '"')
            fail("expected a string");
        ++i_;
        return until('"');
    }
    double number_literal()
    {
        skip_ws();
        std::string digits;
        while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' ||
                                  s_[i_] == '\'' || s_[i_] == '.')) {
            if (s_[i_] != '_' && s_[i_] != '\'')
                digits += s_[i_];
            ++i_;
        }
        char* end = nullptr;
        const double v = std::strtod(digits.c_str(), &end);
        if (digits.empty() || *end != '\0')
            fail("expected a number");
        return v;
    }
    // An index such as sample[2]: a whole number a case could mean.
    size_t index_literal()
    {
        const double v = number_literal();
        if (!(v >= 0 && v <= 1e6) || v != static_cast<double>(static_cast<size_t>(v)))
            fail("expected an index from 0 to 1000000");
        return static_cast<size_t>(v);
    }
    std::string comparison()
    {
        skip_ws();
        for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
            const std::string o(op);
            if (s_.compare(i_, o.size(), o) == 0) {
                i_ += o.size();
                return o;
            }
        }
        fail("expected a comparison (== != < <= > >= in)");
    }
    static bool compare(const Value& a, const std::string& op, const Value& b)
    {
        if ((a.literal || b.literal) && (op == "==" || op == "!="))
            return (a.kind == b.kind) == (op == "==");
        if (a.kind == Value::Kind::missing || b.kind == Value::Kind::missing)
            return false;
        if (a.kind != b.kind)
            return op == "!=";
        const int c = a.kind == Value::Kind::number ? (a.number < b.number ? -1 : a.number > b.number)
                      : a.kind == Value::Kind::string ? a.string.compare(b.string)
                                                      : 0;
        if (op == "==") return c == 0;
        if (op == "!=") return c != 0;
        if (op == "<") return c < 0;
        if (op == "<=") return c <= 0;
        if (op == ">") return c > 0;
        return c >= 0;
    }

    Value sum()
    {
        Value v = term();
        for (;;) {
            skip_ws();
            if (i_ >= s_.size() || (s_[i_] != '+' && s_[i_] != '-') || s_.compare(i_, 2, "..") == 0)
                return v;
            const char op = s_[i_++];
            const Value r = term();
            if (v.kind != Value::Kind::number || r.kind != Value::Kind::number)
                return Value{};
            v.number = op == '+' ? v.number + r.number : v.number - r.number;
        }
    }
    Value term()
    {
        Value v = atom();
        for (;;) {
            skip_ws();
            if (i_ >= s_.size() || (s_[i_] != '*' && s_[i_] != '/'))
                return v;
            const char op = s_[i_++];
            const double k = number_literal();
            if (v.kind == Value::Kind::number)
                v.number = op == '*' ? v.number * k : v.number / k;
        }
    }
    Value atom()
    {
        skip_ws();
        if (i_ >= s_.size())
            fail("expected a value");
        const char c = s_[i_];
        if (std::isdigit(static_cast<unsigned char>(c)))
            return Value{Value::Kind::number, number_literal(), {}};
        if (c == '"')
            return Value{Value::Kind::string, 0, string_literal()};
        const std::string w = take_word();
        if (w == "null")
            return Value{Value::Kind::null, 0, {}};
        if (w == "missing")
            return Value{Value::Kind::missing, 0, {}, true};
        if (w == "exit")
            return Value{Value::Kind::number, static_cast<double>(run_.status), {}};
        if (w == "samples")
            return Value{Value::Kind::number, static_cast<double>(report_.samples.size()), {}};
        if (w == "stalls")
            return Value{Value::Kind::number, static_cast<double>(report_.stalls.size()), {}};
        if (w == "stderr_lines")
            return Value{Value::Kind::number, static_cast<double>(std::count(run_.err.begin(), run_.err.end(), '\n')), {}};
        if (w.rfind("workload", 0) == 0) {
            const std::string n = w.substr(8);
            if (n.find_first_not_of("0123456789") != std::string::npos || n == "0" || n.size() > 2)
                fail("unknown value '" + w + "'");
            expect_char('(');
            const std::string key = until(')');
            const size_t k = n.empty() ? 0 : std::stoul(n) - 1;
            if (k >= run_.workload_outs.size())
                fail("there is no " + w);
            return workload_number(run_.workload_outs[k], key);
        }
        if (w == "syscall_nr") {
            expect_char('(');
            const std::string name = until(')');
            const int nr = seccomp_syscall_resolve_name(name.c_str());
            if (nr < 0)
                fail("no syscall named '" + name + "' on this architecture");
            return Value{Value::Kind::number, static_cast<double>(nr), {}};
        }
        const json* at = nullptr;
        if (w == "sample") {
            size_t k = 0;
            skip_ws();
            if (i_ < s_.size() && s_[i_] == '[') {
                ++i_;
                k = index_literal();
                expect_char(']');
            }
            at = k < report_.samples.size() ? &report_.samples[k] : nullptr;
        } else if (w == "thread") {
            expect_char('(');
            // NAME, or NAME PID: the thread of that name in that process.
            const std::vector<std::string> who = words(until(')'));
            if (who.empty() || who.size() > 2)
                fail("thread() takes a NAME and maybe a PID");
            if (!report_.samples.empty())
                for (const json& t : report_.samples[0]["threads"])
                    if (!at && t.value("name", "") == who[0] &&
                        (who.size() == 1 || std::to_string(t.value("pid", 0u)) == who[1]))
                        at = &t;
        } else if (w == "marker" || w == "stall") {
            // The Nth marker of a kind, or the Nth stall of a thread by name.
            expect_char('(');
            const std::string which = until(')');
            size_t k = 0;
            if (i_ < s_.size() && s_[i_] == '[') {
                ++i_;
                k = index_literal();
                expect_char(']');
            }
            const bool marker = w == "marker";
            for (const json& j : marker ? report_.markers : report_.stalls)
                if (!at && (marker ? j["marker"] == which : j["thread"]["name"] == which) && k-- == 0)
                    at = &j;
        } else {
            fail("unknown value '" + w + "'");
        }
        return from_json(path(at));
    }
    // The rest of a path, from at (null: nothing there).
    const json* path(const json* at)
    {
        for (;;) {
            if (i_ >= s_.size() || s_[i_] != '.' || s_.compare(i_, 2, "..") == 0)
                return at;
            ++i_;
            const std::string key = take_word();
            at = at && at->is_object() && at->contains(key) ? &(*at)[key] : nullptr;
            while (i_ < s_.size() && s_[i_] == '[') {
                ++i_;
                at = select(at, until(']'));
            }
        }
    }
    // An array's element: by index, by "name", or by FIELD=VALUE.
    static const json* select(const json* array, const std::string& sel)
    {
        if (!array || !array->is_array() || sel.empty())
            return nullptr;
        if (sel.find_first_not_of("0123456789") == std::string::npos) {
            if (sel.size() > 9)
                return nullptr;  // past any array's end
            const size_t k = std::stoul(sel);
            return k < array->size() ? &(*array)[k] : nullptr;
        }
        const auto eq = sel.find('=');
        const std::string field = eq == std::string::npos ? "name" : sel.substr(0, eq);
        const std::string want = eq == std::string::npos ? sel : sel.substr(eq + 1);
        for (const json& e : *array) {
            if (!e.is_object() || !e.contains(field))
                continue;
            const json& f = e[field];
            if ((f.is_string() && f.get<std::string>() == want) || (!f.is_string() && f.dump(-1, ' ', false, json::error_handler_t::replace) == want))
                return &e;
        }
        return nullptr;
    }
    // workload(WORD NAME): the number after "WORD NAME " in a workload's output.
    static Value workload_number(const std::string& out, const std::string& key)
    {
        const std::string needle = key + " ";
        std::istringstream in(out);
        for (std::string l; std::getline(in, l);)
            if (l.compare(0, needle.size(), needle) == 0) {
                char* end = nullptr;
                const double v = std::strtod(l.c_str() + needle.size(), &end);
                if (end != l.c_str() + needle.size())
                    return Value{Value::Kind::number, v, {}};
            }
        return Value{};
    }

    const std::string& s_;
    size_t i_ = 0;
    const CaseRun& run_;
    Report report_;
};

}  // namespace

namespace {

constexpr size_t kMaxWorkloads = 4;

// "workload" is 0 (every workload), "workloadN" N (1 to kMaxWorkloads); -1 otherwise.
int workload_number_of(const std::string& w)
{
    if (w == "workload")
        return 0;
    if (w.size() == 9 && w.rfind("workload", 0) == 0 && w[8] >= '1' && w[8] <= '0' + static_cast<int>(kMaxWorkloads))
        return w[8] - '0';
    return -1;
}

// A finished case: what each kind must have.
void check_complete(const E2eCase& c)
{
    if (c.is_error)
        return;
    const std::string where = c.file + ":" + std::to_string(c.line) + ": " + c.name;
    if (c.workloads.empty() && c.command.empty())
        throw std::runtime_error(where + " has no WORKLOAD or COMMAND");
    if (!c.workloads.empty() && !c.command.empty())
        throw std::runtime_error(where + " has both a WORKLOAD and a COMMAND");
    for (const CaseStep& s : c.steps)
        if (s.workload > static_cast<int>(c.workloads.size()))
            throw std::runtime_error(where + ": a STEP signals workload" + std::to_string(s.workload) + " of " +
                                     std::to_string(c.workloads.size()));
    for (const CaseStep& s : c.steps)
        if (!c.command.empty() && s.kind != CaseStep::Kind::sleep && !(s.kind == CaseStep::Kind::signal && s.to_kdelay))
            throw std::runtime_error(where + ": a COMMAND case has no workload to signal or wait for");
    if (c.expects.empty())
        throw std::runtime_error(c.file + ":" + std::to_string(c.line) + ": " + c.name + " has no EXPECT");
}

// ERROR NAME EXIT ARGS... => LINE ('' is an empty argument).
E2eCase error_case(const std::string& rest, const std::string& file, int line,
                   const std::function<void(const std::string&)>& fail)
{
    const size_t arrow = rest.find(" => ");
    if (arrow == std::string::npos)
        fail("ERROR is 'NAME EXIT ARGS... => STDERR LINE'");
    const std::vector<std::string> head = words(rest.substr(0, arrow));
    if (head.size() < 2)
        fail("ERROR is 'NAME EXIT ARGS... => STDERR LINE'");
    E2eCase c;
    c.file = file;
    c.line = line;
    c.name = head[0];
    c.is_error = true;
    try {
        size_t used = 0;
        c.error_exit = std::stoi(head[1], &used);
        if (used != head[1].size())
            throw std::invalid_argument("exit");
    } catch (const std::exception&) {
        fail("ERROR's exit status is a number: " + head[1]);
    }
    for (size_t i = 2; i < head.size(); ++i)
        c.kdelay.push_back(head[i] == "''" ? "" : head[i]);
    c.error_line = rest.substr(arrow + 4);
    if (c.error_line.empty())
        fail("ERROR needs the stderr line after =>");
    return c;
}

}  // namespace

std::vector<E2eCase> parse_cases(const std::string& text, const std::string& file)
{
    std::vector<E2eCase> cases;
    E2eCase* c = nullptr;  // the case the lines go to
    std::istringstream in(text);
    int n = 0;
    auto fail = [&](const std::string& why) { throw std::runtime_error(file + ":" + std::to_string(n) + ": " + why); };
    for (std::string l; std::getline(in, l);) {
        ++n;
        const auto a = l.find_first_not_of(" \t");
        if (a == std::string::npos || l[a] == '#')
            continue;
        const auto sp = l.find_first_of(" \t", a);
        const std::string key = l.substr(a, sp == std::string::npos ? std::string::npos : sp - a);
        const size_t from = sp == std::string::npos ? sp : l.find_first_not_of(" \t", sp);
        const std::string rest = from == std::string::npos ? "" : l.substr(from);
        const std::vector<std::string> args = words(rest);
        if (key == "NAME" || key == "ERROR") {
            if (c)
                check_complete(*c);
            if (key == "ERROR") {
                cases.push_back(error_case(rest, file, n, fail));
                c = nullptr;
                continue;
            }
            if (args.size() != 1)
                fail("NAME takes one word, the test's name");
            cases.emplace_back();
            c = &cases.back();
            c->file = file;
            c->name = args[0];
            c->line = n;
            continue;
        }
        if (!c)
            fail(key + " before any NAME");
        if (key == "REQUIRES") {
            for (const std::string& r : args) {
                const bool tracepoint = r.rfind("tracepoint:", 0) == 0 && r.find(':', 11) != std::string::npos;
                const bool cpus = r.rfind("cpus:", 0) == 0 && r.size() > 5 &&
                                  r.find_first_not_of("0123456789", 5) == std::string::npos;
                if (r != "bpf" && r != "kprobes" && r != "schedstats" && !tracepoint && !cpus)
                    fail("unknown requirement '" + r + "' (bpf, kprobes, schedstats, tracepoint:SYSTEM:EVENT, cpus:N)");
                c->requires_.push_back(r);
            }
        } else if (key == "TAGS") {
            if (args.empty())
                fail("TAGS needs a tag");
            c->tags.insert(c->tags.end(), args.begin(), args.end());
        } else if (key == "WORKLOAD") {
            if (args.empty())
                fail("WORKLOAD needs a program");
            if (c->workloads.size() == kMaxWorkloads)
                fail("at most " + std::to_string(kMaxWorkloads) + " WORKLOADs");
            c->workloads.push_back(args);
        } else if (key == "COMMAND") {
            if (args.empty())
                fail("COMMAND needs a program");
            c->command = args;
        } else if (key == "READY") {
            c->ready = rest;
        } else if (key == "KDELAY") {
            c->kdelay = args;
        } else if (key == "TIMEOUT") {
            try {
                c->timeout = std::chrono::duration_cast<std::chrono::seconds>(duration_of(rest));
            } catch (const std::exception&) {
                fail("TIMEOUT takes a duration: 30, 30s or 500ms");
            }
        } else if (key == "STEP") {
            CaseStep s;
            try {
                if (args.size() == 3 && args[0] == "signal" && (workload_number_of(args[1]) >= 0 || args[1] == "kdelay")) {
                    s.kind = CaseStep::Kind::signal;
                    s.to_kdelay = args[1] == "kdelay";
                    s.workload = s.to_kdelay ? 0 : workload_number_of(args[1]);
                    s.signal = signal_named(args[2]);
                    if (!s.signal)
                        fail("unknown signal '" + args[2] + "'");
                } else if (args.size() >= 3 && args[0] == "wait") {
                    s.kind = CaseStep::Kind::wait;
                    s.time = duration_of(args[1]);
                    s.text = rest.substr(rest.find(args[2], rest.find(args[1]) + args[1].size()));
                } else if (args.size() == 2 && args[0] == "sleep") {
                    s.kind = CaseStep::Kind::sleep;
                    s.time = duration_of(args[1]);
                } else {
                    fail("STEP is 'signal workload[N]|kdelay SIG', 'wait DURATION TEXT' or 'sleep DURATION'");
                }
            } catch (const std::logic_error&) {  // std::stod's invalid_argument and out_of_range
                fail("a STEP duration is a number with s or ms");
            }
            c->steps.push_back(s);
        } else if (key == "EXPECT") {
            if (rest.empty())
                fail("EXPECT needs an expectation");
            c->expects.push_back({rest, n});
        } else {
            fail("unknown key '" + key + "' (NAME ERROR REQUIRES TAGS WORKLOAD COMMAND READY KDELAY STEP TIMEOUT EXPECT)");
        }
    }
    if (c)
        check_complete(*c);
    if (cases.empty())
        throw std::runtime_error(file + ": no NAME or ERROR");
    return cases;
}

E2eCase parse_case(const std::string& text, const std::string& file)
{
    std::vector<E2eCase> cases = parse_cases(text, file);
    if (cases.size() != 1)
        throw std::runtime_error(file + ": " + std::to_string(cases.size()) + " cases, not one");
    return cases.front();
}

namespace {

// A OR B OR ...: "" when one holds, else each one's failure.
std::string check_alternatives(const std::string& expr, const CaseRun& run)
{
    std::vector<std::string> alternatives(1);
    bool quoted = false;
    for (size_t i = 0; i < expr.size(); ++i) {
        quoted ^= expr[i] == '"';
        if (!quoted && expr.compare(i, 4, " or ") == 0) {
            alternatives.emplace_back();
            i += 3;
        } else {
            alternatives.back() += expr[i];
        }
    }
    std::string failures;
    for (const std::string& a : alternatives) {
        const std::string failure = Evaluator(a, run).check();
        if (failure.empty())
            return "";
        failures += (failures.empty() ? "" : ", and ") + failure;
    }
    return failures;
}

}  // namespace

std::string check_expectation(const std::string& expr, const CaseRun& run)
{
    const std::string each = "[*]";
    if (expr.find(each) == std::string::npos)
        return check_alternatives(expr, run);
    const size_t samples = Report(run.out).samples.size();
    if (samples == 0)
        return "no sample to check [*] against";
    for (size_t k = 0; k < samples; ++k) {
        std::string one = expr;
        for (size_t at; (at = one.find(each)) != std::string::npos;)
            one.replace(at, each.size(), "[" + std::to_string(k) + "]");
        if (std::string failure = check_alternatives(one, run); !failure.empty())
            return "with [*] = [" + std::to_string(k) + "]: " + failure;
    }
    return "";
}

std::string with_pids(std::string text, const std::vector<int>& pids)
{
    for (size_t k = 0; k < pids.size(); ++k)
        for (const std::string& name : k == 0 ? std::vector<std::string>{"{pid}", "{pid1}"}
                                              : std::vector<std::string>{"{pid" + std::to_string(k + 1) + "}"})
            for (size_t at; (at = text.find(name)) != std::string::npos;)
                text.replace(at, name.size(), std::to_string(pids[k]));
    return text;
}

}  // namespace kdtest
