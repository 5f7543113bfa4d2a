// Go-style durations as the flags take them: "30s", "5s", "1m", "500ms", "1h30m".
#pragma once

#include <chrono>
#include <string>

#include "common/result.h"

namespace weft::agent {

Result<std::chrono::milliseconds> parse_duration(const std::string& text);

}  // namespace weft::agent
