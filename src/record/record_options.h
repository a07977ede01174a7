// kdelay record's options.
#pragma once

#include <vector>

#include "cli/option_kit.h"
#include "record/record_config.h"

namespace kdelay {

void add_record_command(CLI::App& app, CommonOptions& common, RecordConfig& values, Subcommand& c, std::vector<unsigned>& debug_flags);

}  // namespace kdelay
