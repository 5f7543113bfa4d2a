// Go durations (time.ParseDuration / Duration.String), the one codec for every flag,
// config and policy field that takes one: "300ms", "1.5h", "2h45m", "-1m30s", "0".
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/result.h"

namespace weft::kube {

using Duration = std::chrono::nanoseconds;

// Go's grammar exactly: an optional sign, then one or more <decimal><unit> with units
// ns, us, µs (U+00B5 or U+03BC), ms, s, m, h; "0" alone needs no unit. Fractions are
// truncated to the nanosecond as Go does. "1.2.3s", "5", "1 s", "" and values beyond
// ±292 years (int64 nanoseconds) are errors naming the text.
Result<Duration> parse_duration(std::string_view text);

// As parse_duration, and at least `min` (e.g. Duration::zero() for an age, 1ms for a period).
Result<Duration> parse_duration_at_least(std::string_view text, Duration min);

// A plain number of seconds (a YAML/JSON number where a duration is also allowed);
// NaN, infinities and values out of range are errors.
Result<Duration> duration_from_seconds(double seconds);

// Go's Duration.String(): "1h2m3.5s", "5m0s", "300ms", "1.5µs", "0s".
std::string format_duration(Duration d);

inline double to_seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace weft::kube
