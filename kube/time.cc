#include "kube/time.h"

#include <cstring>
#include <ctime>
#include <limits>

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

bool leap_year(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap_year(y) ? 29 : kDays[m - 1];
}

// TimePoint counts nanoseconds in an int64 (1677-09-21 .. 2262-04-11): whole seconds
// beyond that cannot be represented.
constexpr int64_t kMaxSeconds = std::numeric_limits<int64_t>::max() / 1'000'000'000 - 1;

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
    // strchr finds a NUL byte too (the terminator), so "2026-01\0..." would pass as '-'.
    if (i >= text.size() || text[i] == '\0' || !std::strchr(any_of, text[i])) return false;
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
    if (!number(2, zh) || !expect(":") || !number(2, zm) || zh > 23 || zm > 59)
      return make_error("time '" + text + "': bad zone offset");
    offset = (zh * 60 + zm) * 60 * (zone[0] == '-' ? -1 : 1);
  } else {
    return make_error("time '" + text + "' has no zone (end with Z or +hh:mm)");
  }
  // Second 60 is refused as Go's time.Parse (the API server's parser) refuses it.
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || sec > 59)
    return make_error("time '" + text + "' is out of range");
  if (d < 1 || d > days_in_month(y, mo))
    return make_error("time '" + text + "': day " + std::to_string(d) + " does not exist in " + std::to_string(y) + "-" +
                      text.substr(5, 2));
  int64_t whole = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 +
                  mi * 60 + sec - offset;
  if (whole > kMaxSeconds || whole < -kMaxSeconds)
    return make_error("time '" + text + "' is outside 1678..2261, the range weft's clock can hold");
  return TimePoint(std::chrono::seconds(whole)) +
         std::chrono::duration_cast<TimePoint::duration>(std::chrono::nanoseconds(nanos));
}

std::string format_rfc3339(TimePoint t) {
  // To the second below: to_time_t truncates toward zero, a second late before 1970.
  const auto secs = static_cast<std::time_t>(std::chrono::floor<std::chrono::seconds>(t).time_since_epoch().count());
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace weft::kube
