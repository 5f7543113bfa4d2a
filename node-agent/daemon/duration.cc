#include "node-agent/daemon/duration.h"

#include <cctype>
#include <cstdlib>

namespace weft::agent {

Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  if (text.empty()) return make_error("duration '': empty (expected e.g. 30s, 500ms, 1m)");
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    if (start == i) return make_error("duration '" + text + "': expected a number at '" + text.substr(start) + "'");
    const double value = std::strtod(text.substr(start, i - start).c_str(), nullptr);
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    const std::string unit = text.substr(unit_start, i - unit_start);
    double scale;
    if (unit == "ms") scale = 1;
    else if (unit == "s") scale = 1000;
    else if (unit == "m") scale = 60000;
    else if (unit == "h") scale = 3600000;
    else return make_error("duration '" + text + "': unit '" + unit + "' is not ms, s, m or h");
    total_ms += value * scale;
  }
  return std::chrono::milliseconds(static_cast<long long>(total_ms));
}

}  // namespace weft::agent
