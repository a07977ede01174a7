#include "cli/option_kit.h"

#include <map>

namespace kdelay {

const CLI::Validator kUnsigned(
    [](std::string& value) -> std::string {
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
            return "must be an unsigned integer, not '" + value + "'";
        return {};
    },
    "", "unsigned");

CLI::Option* add_debug_option(CLI::App& app, std::vector<unsigned>& flags)
{
    return add_optional_value(app, "-D,--debug", flags,
                              "Show BCC's output; FLAGS also sets BCC's debug flags (bare: 63)", "FLAGS");
}

CLI::Option* add_pid_option(CLI::App& app, int64_t& pid, const std::string& help)
{
    return app.add_option("-p,--pid", pid, help)
        ->check(CLI::Range(int64_t{1}, int64_t{4194304}).description(""))
        ->type_name("PID");
}

CLI::App& begin_subcommand(CLI::App& app, Subcommand& c, Options::Mode mode, const std::string& name,
                           const std::string& description, const char* no_command)
{
    c = Subcommand{mode};
    c.no_command = no_command;
    c.app = app.add_subcommand(name, description);
    return *c.app;
}

void add_format_option(CLI::App& app, Options::Format& format, const std::string& help)
{
    static const std::map<std::string, Options::Format> formats = {{"text", Options::Format::text},
                                                                   {"json", Options::Format::json}};
    app.add_option("--format", format, help)
        ->transform(CLI::CheckedTransformer(formats).description(""))
        ->type_name("text|json");
}

}  // namespace kdelay
