// Timestamps as the Kubernetes API writes them (RFC 3339: creationTimestamp, lease times)
// and as weft writes its own (annotations, state files).
#pragma once

#include <chrono>
#include <string>

#include "common/result.h"

namespace weft::kube {

using TimePoint = std::chrono::system_clock::time_point;

// "2026-11-23T03:00:00Z", "...+02:00", "...T03:00:00.25Z" (fractions kept to the
// nanosecond); anything else is an error naming the text.
Result<TimePoint> parse_rfc3339(const std::string& text);
// UTC to the second: "2026-11-23T03:00:00Z".
std::string format_rfc3339(TimePoint t);

}  // namespace weft::kube
