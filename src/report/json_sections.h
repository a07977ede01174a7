// How each report kind prints in JSON: a key and its value in the enclosing
// object (a thread or a sample). docs/json.md has the schema.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "report/report.h"

namespace kdelay {

std::pair<std::string, nlohmann::json> json_section(const Section& section);

}  // namespace kdelay
