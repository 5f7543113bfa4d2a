#include "scheduler/core/time_format.h"

#include <cstdio>
#include <ctime>

namespace weft::scheduler {

std::optional<TimePoint> parse_rfc3339(const std::string& text) {
  int y, mo, d, h, mi;
  double sec;
  char rest[16] = {0};
  if (std::sscanf(text.c_str(), "%d-%d-%dT%d:%d:%lf%15s", &y, &mo, &d, &h, &mi, &sec, rest) < 6) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = 0;
  time_t base = timegm(&tm);
  std::string zone = rest;
  long offset = 0;
  if (!zone.empty() && zone != "Z" && zone != "z") {
    int oh = 0, om = 0;
    if (std::sscanf(zone.c_str() + 1, "%d:%d", &oh, &om) < 1) return std::nullopt;
    offset = (oh * 3600L + om * 60L) * (zone[0] == '-' ? -1 : 1);
  }
  auto t = Clock::from_time_t(base - offset);
  return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(sec));
}

}  // namespace weft::scheduler
