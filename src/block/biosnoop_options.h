// kdelay biosnoop's options.
#pragma once

#include <vector>

#include "block/biosnoop_config.h"
#include "cli/option_kit.h"

namespace kdelay {

void add_biosnoop_command(CLI::App& app, CommonOptions& common, BiosnoopConfig& values, Subcommand& c, std::vector<unsigned>& debug_flags);

}  // namespace kdelay
