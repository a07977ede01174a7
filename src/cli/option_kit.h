// The pieces every mode's options are built from, declared once: the shared
// options (-p, -D, --format), optional-value options, and the record of a
// parsed subcommand.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>
#include <vector>

#include "cli/common_options.h"

namespace kdelay {

// Validators whose failures say, in kdelay's words, what was given and what
// is allowed; CLI11 puts the option's name in front.
// Digits only, so no sign (CLI11 would wrap "-5" into a huge unsigned value),
// no hex, no exponent.
CLI::Validator whole_number(uint64_t min, uint64_t max);
// Digits with an optional decimal point: no NaN, infinity, sign, hex or
// exponent.
CLI::Validator seconds(double min, double max);
// A length of time as such digits and a unit, us, ms or s (bare: ms), from
// min_ns to max_ns.
CLI::Validator duration(uint64_t min_ns, uint64_t max_ns);
// The nanoseconds of a value that duration() passed.
uint64_t duration_ns(const std::string& value);

// An option whose value may be left out, as argparse's nargs="?".
template <typename T>
CLI::Option* add_optional_value(CLI::App& app, const std::string& names, std::vector<T>& values,
                                const std::string& help, const std::string& type)
{
    return app.add_option(names, values, help)
        ->expected(0, 1)
        ->check(whole_number(0, std::numeric_limits<T>::max()))
        ->type_name("[" + type + "]");
}

// The value of an optional-value option: nullopt when not given, bare when
// given without a value (CLI11 then stores "" and converts it to 0).
template <typename T>
std::optional<T> optional_value(const CLI::Option* opt, const std::vector<T>& values, T bare)
{
    if (opt->count() == 0)
        return std::nullopt;
    const auto& raw = opt->results();
    if (raw.empty() || raw.front().empty() || values.empty())
        return bare;
    return values.front();
}

// -D, -D FLAGS, --debug FLAGS: upstream's optional integer, bare meaning 0x3f.
CLI::Option* add_debug_option(CLI::App& app, std::vector<unsigned>& flags);
// -p PID[,PID...]: one or several processes (-p 1,2 and -p 1 -p 2 alike);
// without list, the help names one PID.
CLI::Option* add_pid_option(CLI::App& app, std::vector<int64_t>& pids, const std::string& help, bool list);
// --cgroup PATH and --unit NAME: every task in a cgroup or below it.
void add_cgroup_options(CLI::App& app, CommonOptions& common);
// -p's values in the order given, each once.
std::vector<pid_t> distinct_pids(const std::vector<int64_t>& values);
// --format text|json, and journal too when with_journal.
void add_format_option(CLI::App& app, CommonOptions& common, const std::string& help, bool with_journal = false);

// Checks what CLI11 cannot name well before it parses: "--NAME=" with nothing
// after it, or an option that needs a value given last. Throws
// Error(Exit::usage).
void check_values_present(const CLI::App& app, const std::vector<std::string>& args);
// CLI11's parse error e as one line in kdelay's words (an option given twice,
// an unknown option or argument); validators' messages pass through.
std::string explain_parse_error(const CLI::App& app, const CLI::ParseError& e);

struct Subcommand;

// Starts c as the subcommand NAME of app, in mode, saying no_command to a
// command given after "--".
CLI::App& begin_subcommand(CLI::App& app, Subcommand& c, CommonOptions::Mode mode, const std::string& name,
                           const std::string& description, const char* no_command);

// A subcommand's mode as CLI11 parsed it: its -p and -D, and what to say
// when it is given a command after "--". The options bind to pid, so a
// Subcommand stays where it was filled.
struct Subcommand {
    CommonOptions::Mode mode = CommonOptions::Mode::delay;
    CLI::App* app = nullptr;
    CLI::Option* pid_opt = nullptr;  // nullptr: no -p
    CLI::Option* debug_opt = nullptr;
    const char* no_command = "";
    std::vector<int64_t> pids;
};

}  // namespace kdelay
