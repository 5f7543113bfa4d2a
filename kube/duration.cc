#include "kube/duration.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace weft::kube {
namespace {

constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;   // |INT64_MIN|

// Nanoseconds per unit, or 0 when `unit` is not one.
uint64_t unit_nanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m") return 60'000'000'000;
  if (unit == "h") return 3'600'000'000'000;
  return 0;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits of `v` / 10^prec with trailing zeros (and a bare point) left out.
std::string with_fraction(uint64_t v, int prec) {
  uint64_t scale = 1;
  for (int i = 0; i < prec; ++i) scale *= 10;
  std::string out = std::to_string(v / scale);
  uint64_t frac = v % scale;
  if (frac == 0) return out;
  std::string digits(static_cast<size_t>(prec), '0');
  for (int i = prec - 1; i >= 0; --i, frac /= 10) digits[static_cast<size_t>(i)] = static_cast<char>('0' + frac % 10);
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

}  // namespace

Result<Duration> parse_duration(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return make_error("duration '" + std::string(text) + "': " + why + " (Go syntax: 300ms, 1.5h, 2h45m)");
  };
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  if (text.substr(i) == "0") return Duration::zero();
  if (i == text.size()) return bad("empty");
  uint64_t total = 0;
  while (i < text.size()) {
    const size_t start = i;
    uint64_t whole = 0;
    bool overflow = false;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      if (whole > (kMaxMagnitude - 9) / 10) overflow = true;
      else whole = whole * 10 + static_cast<uint64_t>(text[i] - '0');
    }
    const bool had_whole = i > start;
    uint64_t frac = 0, frac_scale = 1;
    bool had_frac = false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      const size_t frac_start = i;
      for (; i < text.size() && is_digit(text[i]); ++i) {
        // Digits beyond 18 are below a nanosecond for every unit: dropped, as Go drops them.
        if (frac_scale < 1'000'000'000'000'000'000ULL) {
          frac = frac * 10 + static_cast<uint64_t>(text[i] - '0');
          frac_scale *= 10;
        }
      }
      had_frac = i > frac_start;
    }
    if (!had_whole && !had_frac) return bad("expected a number at offset " + std::to_string(start));
    if (overflow) return bad("out of range");
    const size_t unit_start = i;
    while (i < text.size() && text[i] != '.' && !is_digit(text[i])) ++i;
    const std::string_view unit = text.substr(unit_start, i - unit_start);
    if (unit.empty()) return bad("missing unit after '" + std::string(text.substr(start, unit_start - start)) + "'");
    const uint64_t nanos = unit_nanos(unit);
    if (nanos == 0) return bad("unknown unit '" + std::string(unit) + "' (ns, us, ms, s, m, h)");
    if (whole > kMaxMagnitude / nanos) return bad("out of range");
    uint64_t value = whole * nanos;
    if (frac > 0) {
      const unsigned __int128 part = static_cast<unsigned __int128>(frac) * nanos / frac_scale;
      value += static_cast<uint64_t>(part);   // part < nanos <= 3.6e12: no wrap
      if (value > kMaxMagnitude) return bad("out of range");
    }
    total += value;
    if (total > kMaxMagnitude || total < value) return bad("out of range");
  }
  if (negative) return Duration(total == kMaxMagnitude ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(total));
  if (total > kMaxMagnitude - 1) return bad("out of range");
  return Duration(static_cast<int64_t>(total));
}

Result<Duration> parse_duration_at_least(std::string_view text, Duration min) {
  auto d = parse_duration(text);
  if (!d) return d;
  if (*d < min)
    return make_error("duration '" + std::string(text) + "': must be at least " + format_duration(min));
  return d;
}

Result<Duration> duration_from_seconds(double seconds) {
  // 9.2e9 s is int64 nanoseconds' limit; a double that large has no nanosecond precision anyway.
  if (!std::isfinite(seconds) || std::fabs(seconds) >= 9.2e9)
    return make_error("duration " + std::to_string(seconds) + " s: not a finite number of seconds within ±292 years");
  return Duration(static_cast<int64_t>(std::llround(seconds * 1e9)));
}

std::string format_duration(Duration d) {
  const int64_t n = d.count();
  const bool negative = n < 0;
  // Magnitude in unsigned arithmetic so INT64_MIN has one too.
  uint64_t u = negative ? ~static_cast<uint64_t>(n) + 1 : static_cast<uint64_t>(n);
  std::string out;
  if (u == 0) return "0s";
  if (u < 1'000'000'000) {
    if (u < 1'000) out = std::to_string(u) + "ns";
    else if (u < 1'000'000) out = with_fraction(u, 3) + "\xC2\xB5s";
    else out = with_fraction(u, 6) + "ms";
  } else {
    const uint64_t seconds_part = u % 60'000'000'000;
    const uint64_t minutes = u / 60'000'000'000;
    out = with_fraction(seconds_part, 9) + "s";
    if (minutes > 0) {
      out = std::to_string(minutes % 60) + "m" + out;
      if (minutes >= 60) out = std::to_string(minutes / 60) + "h" + out;
    }
  }
  return negative ? "-" + out : out;
}

}  // namespace weft::kube
