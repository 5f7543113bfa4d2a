// The plan JSON line in a weft-descheduler run's output (`--output json`), for the tests
// that run the binary.
#pragma once

#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace weft::testing {

inline std::optional<nlohmann::json> plan_line(const std::string& output) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("{\"evictions\"", 0) == 0 || line.rfind("{\"nodes\"", 0) == 0) return nlohmann::json::parse(line);
  return std::nullopt;
}

}  // namespace weft::testing
