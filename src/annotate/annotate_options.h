// kdelay annotate's options.
#pragma once

#include "annotate/annotate_config.h"
#include "cli/option_kit.h"

namespace kdelay {

void add_annotate_command(CLI::App& app, CommonOptions& common, AnnotateConfig& values, Subcommand& c);

}  // namespace kdelay
