#include "cli/option_kit.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <optional>

#include "core/error.h"

namespace kdelay {

namespace {

// "0.001", "86400": the shortest text that reads back as the same number.
std::string number_text(double v)
{
    return fmt::format("{}", v);
}

// Every option of app and of its subcommands, then theirs.
template <typename F>
void for_each_option(const CLI::App& app, F&& f)
{
    for (const CLI::Option* o : app.get_options())
        f(*o);
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        for_each_option(*sub, f);
}

const CLI::Option* find_option(const CLI::App& app, const std::string& name)
{
    const CLI::Option* found = nullptr;
    for_each_option(app, [&](const CLI::Option& o) {
        if (!found && o.check_name(name))
            found = &o;
    });
    return found;
}

std::string quoted_list(const std::vector<std::string>& values)
{
    std::string out;
    for (const std::string& v : values)
        out += (out.empty() ? "'" : ", '") + v + "'";
    return out;
}

}  // namespace

CLI::Validator whole_number(uint64_t min, uint64_t max)
{
    return CLI::Validator(
        [min, max](std::string& value) -> std::string {
            const std::string allowed = fmt::format("a whole number from {} to {}", min, max);
            if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
                return fmt::format("'{}' is not {}", value, allowed);
            uint64_t n = 0;
            const char* end = value.data() + value.size();
            const auto [ptr, ec] = std::from_chars(value.data(), end, n);
            if (ec != std::errc() || ptr != end || n < min || n > max)
                return fmt::format("'{}' is out of range; give {}", value, allowed);
            return {};
        },
        "", "whole number");
}

CLI::Validator seconds(double min, double max)
{
    return CLI::Validator(
        [min, max](std::string& value) -> std::string {
            const std::string allowed =
                fmt::format("from {} to {}", number_text(min), number_text(max));
            const size_t point = value.find('.');
            const bool digits = value.find_first_not_of("0123456789.") == std::string::npos &&
                                (point == std::string::npos || value.find('.', point + 1) == std::string::npos) &&
                                value.find_first_of("0123456789") != std::string::npos;
            if (!digits)
                return fmt::format("'{}' is not a number of seconds; give one {}, such as 0.5", value, allowed);
            double v = 0;
            const char* end = value.data() + value.size();
            const auto [ptr, ec] = std::from_chars(value.data(), end, v);
            if (ec != std::errc() || ptr != end || !(v >= min && v <= max))
                return fmt::format("'{}' is out of range; give seconds {}", value, allowed);
            return {};
        },
        "", "seconds");
}

namespace {

// The value's number and its unit's nanoseconds, when it is one.
std::optional<std::pair<double, double>> split_duration(const std::string& value)
{
    static const std::pair<const char*, double> units[] = {{"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    std::string number = value;
    double unit = 1e6;
    for (const auto& [suffix, ns] : units) {
        const size_t n = strlen(suffix);
        if (value.size() > n && value.compare(value.size() - n, n, suffix) == 0 &&
            (n == 2 || !isalpha(static_cast<unsigned char>(value[value.size() - 2])))) {
            number = value.substr(0, value.size() - n);
            unit = ns;
            break;
        }
    }
    const size_t point = number.find('.');
    if (number.find_first_not_of("0123456789.") != std::string::npos ||
        (point != std::string::npos && number.find('.', point + 1) != std::string::npos) ||
        number.find_first_of("0123456789") == std::string::npos)
        return std::nullopt;
    double v = 0;
    const char* end = number.data() + number.size();
    const auto [ptr, ec] = std::from_chars(number.data(), end, v);
    if (ec != std::errc() || ptr != end)
        return std::nullopt;
    return std::make_pair(v, unit);
}

std::string duration_text(uint64_t ns)
{
    if (ns % 1000000000 == 0)
        return fmt::format("{}s", ns / 1000000000);
    return ns < 1000000 ? fmt::format("{}us", number_text(ns / 1e3)) : fmt::format("{}ms", number_text(ns / 1e6));
}

}  // namespace

CLI::Validator duration(uint64_t min_ns, uint64_t max_ns)
{
    return CLI::Validator(
        [min_ns, max_ns](std::string& value) -> std::string {
            const std::string allowed = fmt::format("from {} to {}", duration_text(min_ns), duration_text(max_ns));
            const auto d = split_duration(value);
            if (!d)
                return fmt::format("'{}' is not a length of time; give one {}, such as 200ms or 1s (bare: ms)",
                                   value, allowed);
            const double ns = d->first * d->second;
            if (!(ns >= static_cast<double>(min_ns) && ns <= static_cast<double>(max_ns)))
                return fmt::format("'{}' is out of range; give a length of time {}", value, allowed);
            return {};
        },
        "", "duration");
}

uint64_t duration_ns(const std::string& value)
{
    const auto d = split_duration(value);
    return d ? static_cast<uint64_t>(d->first * d->second + 0.5) : 0;
}

CLI::Option* add_debug_option(CLI::App& app, std::vector<unsigned>& flags)
{
    return add_optional_value(app, "-D,--debug", flags,
                              "Show BCC's output and compile with debug info; FLAGS also sets BCC's debug flags (bare: 63)", "FLAGS");
}

CLI::Option* add_pid_option(CLI::App& app, std::vector<int64_t>& pids, const std::string& help, bool list)
{
    // A list is parsed even where one process is taken, so that the mode
    // can say why it takes one.
    return app.add_option("-p,--pid", pids, help)
        ->delimiter(',')
        ->allow_extra_args(false)
        ->check(whole_number(1, 4194304))
        ->type_name(list ? "PID[,PID...]" : "PID");
}

void add_cgroup_options(CLI::App& app, CommonOptions& common)
{
    app.add_option("--cgroup", common.cgroup,
                   "Every task in this cgroup or below it, including those that join during the run")
        ->type_name("PATH");
    app.add_option("--unit", common.unit, "The cgroup of this systemd unit (NAME without a suffix: NAME.service)")
        ->type_name("NAME");
}

std::vector<pid_t> distinct_pids(const std::vector<int64_t>& values)
{
    std::vector<pid_t> pids;
    for (int64_t v : values)
        if (std::find(pids.begin(), pids.end(), static_cast<pid_t>(v)) == pids.end())
            pids.push_back(static_cast<pid_t>(v));
    return pids;
}

CLI::App& begin_subcommand(CLI::App& app, Subcommand& c, CommonOptions::Mode mode, const std::string& name,
                           const std::string& description, const char* no_command)
{
    c = Subcommand{};
    c.mode = mode;
    c.no_command = no_command;
    c.app = app.add_subcommand(name, description);
    return *c.app;
}

void add_format_option(CLI::App& app, CommonOptions& common, const std::string& help, bool with_journal)
{
    static const std::map<std::string, CommonOptions::Format> formats = {{"text", CommonOptions::Format::text},
                                                                         {"json", CommonOptions::Format::json},
                                                                         {"journal", CommonOptions::Format::journal}};
    const std::string names = with_journal ? "text|json|journal" : "text|json";
    const CLI::Validator one_of(
        [with_journal](std::string& value) -> std::string {
            if (formats.count(value) == 0 || (value == "journal" && !with_journal))
                return fmt::format("'{}' is not an output format; give {}", value,
                                   with_journal ? "text, json or journal" : "text or json");
            return {};
        },
        "", "format");
    // A callback, not a transform, so that an error quotes what was typed.
    app.add_option_function<std::string>(
           "--format",
           [&common](const std::string& name) {
               common.format = formats.at(name);
               common.format_given = true;
           },
           help)
        ->check(one_of)
        ->type_name(names);
}

void check_values_present(const CLI::App& app, const std::vector<std::string>& args)
{
    // An option of the subcommand named in args, before the main command's.
    const CLI::App* scope = &app;
    for (const CLI::App* sub : app.get_subcommands({}))
        if (std::find(args.begin(), args.end(), sub->get_name()) != args.end())
            scope = sub;
    auto needs_value = [&](const std::string& name, bool optional_too) {
        const CLI::Option* o = scope->get_option_no_throw(name);
        if (!o)
            o = find_option(app, name);
        if (o && o->get_items_expected_max() > 0 && (optional_too || o->get_items_expected_min() > 0))
            throw Error(Exit::usage, fmt::format("{}: no value given; give {} (see kdelay --help)", o->get_name(),
                                                 o->get_type_name()));
    };
    for (const std::string& a : args)
        if (a.size() > 3 && a.compare(0, 2, "--") == 0 && a.back() == '=' && a.find('=') == a.size() - 1)
            needs_value(a.substr(0, a.size() - 1), true);
    if (!args.empty() && args.back().size() > 1 && args.back()[0] == '-')
        needs_value(args.back(), false);
}

std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& e)
{
    std::string repeated;
    for_each_option(app, [&](const CLI::Option& o) {
        if (repeated.empty() && o.get_items_expected_max() == 1 && o.count() > 1)
            repeated = fmt::format("{}: given {} times ({}); give it once", o.get_name(), o.count(),
                                   quoted_list(o.results()));
    });
    if (!repeated.empty())
        return repeated;
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
        const std::vector<std::string> extras = app.remaining(true);
        if (!extras.empty() && extras.front().size() > 1 && extras.front()[0] == '-')
            return fmt::format("unknown option '{}'", extras.front());
        if (!extras.empty())
            return fmt::format("unexpected argument '{}'; a command to run goes after '--'", extras.front());
    }
    return e.what();
}

}  // namespace kdelay
