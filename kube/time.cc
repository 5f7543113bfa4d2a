#include "kube/time.h"

#include <cstring>
#include <ctime>

namespace weft::kube {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t days_from_civil(int y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<int64_t>(era) * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace

Result<TimePoint> parse_rfc3339(const std::string& text) {
  // Hand-parsed (every pod's creationTimestamp passes here): YYYY-MM-DDTHH:MM:SS[.frac](Z|+hh:mm).
  auto bad = [&] { return make_error("time '" + text + "' is not RFC 3339 (2026-01-02T15:04:05Z)"); };
  size_t i = 0;
  auto number = [&](size_t digits, int& out) {
    out = 0;
    for (size_t k = 0; k < digits; ++k, ++i) {
      if (i >= text.size() || text[i] < '0' || text[i] > '9') return false;
      out = out * 10 + (text[i] - '0');
    }
    return true;
  };
  auto expect = [&](const char* any_of) {
    if (i >= text.size() || !std::strchr(any_of, text[i])) return false;
    ++i;
    return true;
  };
  int y, mo, d, h, mi, sec;
  if (!number(4, y) || !expect("-") || !number(2, mo) || !expect("-") || !number(2, d) || !expect("Tt") ||
      !number(2, h) || !expect(":") || !number(2, mi) || !expect(":") || !number(2, sec))
    return bad();
  int64_t nanos = 0;
  if (i < text.size() && text[i] == '.') {
    int64_t scale = 100000000;
    size_t start = ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, scale /= 10) nanos += (text[i] - '0') * scale;
    if (i == start) return bad();
  }
  std::string zone = text.substr(i);
  int offset = 0;
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int zh = 0, zm = 0;
    ++i;
    if (!number(2, zh) || !expect(":") || !number(2, zm)) return make_error("time '" + text + "': bad zone");
    offset = (zh * 60 + zm) * 60 * (zone[0] == '-' ? -1 : 1);
  } else {
    return make_error("time '" + text + "' has no zone (end with Z or +hh:mm)");
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
    return make_error("time '" + text + "' is out of range");
  int64_t whole = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
                  mi * 60 + sec - offset;
  return TimePoint(std::chrono::seconds(whole)) +
         std::chrono::duration_cast<TimePoint::duration>(std::chrono::nanoseconds(nanos));
}

std::string format_rfc3339(TimePoint t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace weft::kube
