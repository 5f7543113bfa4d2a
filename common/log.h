#pragma once

#include <string>

#include "common/result.h"

namespace weft {

// Configures the default spdlog logger for a binary: stderr, one line per event,
// "<time> <level> <binary>: message". level: trace|debug|info|warn|error.
Status setup_logging(const std::string& binary, const std::string& level = "info");

}  // namespace weft
