// kdelay annotate's options.
#pragma once

#include "cli/option_kit.h"

namespace kdelay {

void add_annotate_command(CLI::App& app, Options& opt, Subcommand& c);

}  // namespace kdelay
