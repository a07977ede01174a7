// kdelay biosnoop's options.
#pragma once

#include <vector>

#include "cli/option_kit.h"

namespace kdelay {

void add_biosnoop_command(CLI::App& app, Options& opt, Subcommand& c, std::vector<unsigned>& debug_flags);

}  // namespace kdelay
