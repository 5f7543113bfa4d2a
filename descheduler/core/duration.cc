#include "descheduler/core/duration.h"

#include <cmath>
#include <cstdlib>

namespace weft::descheduler {

Result<Seconds> parse_duration(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return make_error("duration '" + text + "': " + why + " (want e.g. 30s, 5m, 1h30m)");
  };
  if (text.empty()) return bad("empty");
  char* end = nullptr;
  double plain = std::strtod(text.c_str(), &end);
  if (end && *end == '\0') {
    if (!std::isfinite(plain) || plain < 0) return bad("not a non-negative number");
    return Seconds(plain);
  }
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    const char* start = text.c_str() + i;
    double value = std::strtod(start, &end);
    if (end == start) return bad("expected a number at offset " + std::to_string(i));
    if (!std::isfinite(value) || value < 0) return bad("negative or invalid number");
    i += static_cast<size_t>(end - start);
    size_t unit_start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string unit = text.substr(unit_start, i - unit_start);
    double scale = 0;
    if (unit == "h") scale = 3600;
    else if (unit == "m") scale = 60;
    else if (unit == "s") scale = 1;
    else if (unit == "ms") scale = 1e-3;
    else if (unit == "us" || unit == "µs") scale = 1e-6;
    else if (unit == "ns") scale = 1e-9;
    else return bad(unit.empty() ? "missing unit" : "unknown unit '" + unit + "'");
    total += value * scale;
  }
  return Seconds(total);
}

std::string format_duration(Seconds d) {
  double s = d.count();
  if (s >= 3600 && std::fmod(s, 60) == 0) {
    long long m = static_cast<long long>(s / 60);
    std::string out = std::to_string(m / 60) + "h";
    if (m % 60) out += std::to_string(m % 60) + "m";
    return out;
  }
  if (s >= 60 && std::fmod(s, 60) == 0) return std::to_string(static_cast<long long>(s / 60)) + "m";
  if (std::fmod(s, 1) == 0) return std::to_string(static_cast<long long>(s)) + "s";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gs", s);
  return buf;
}

}  // namespace weft::descheduler
