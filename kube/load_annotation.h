// The weft.dev/load Node annotation, written by each agent about its own Node and read
// by the scheduler (load-aware scoring) and the descheduler (--load annotations):
//   {"cpu":0.37,"memory":0.52,"window_s":60,"source":"ebpf","at":"2026-11-23T10:00:00Z"}
// docs/contracts.md has the format and the one rule every reader follows for a bad or
// stale value: such a node's load is unknown, never guessed, and the reason is reported.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"
#include "kube/duration.h"
#include "kube/time.h"

namespace weft::kube {

struct LoadAnnotation {
  double cpu = 0;          // busy ratio over the window, 0..1
  double memory = 0;       // used ratio (1 - MemAvailable/MemTotal), 0..1
  double window_s = 0;     // seconds the ratios average; 0 when not stated
  std::string source;      // "ebpf" | "procfs"; "" when not stated
  TimePoint cpu_at{};      // when each ratio was measured ("at" sets both)
  TimePoint memory_at{};
  TimePoint oldest() const { return cpu_at < memory_at ? cpu_at : memory_at; }
};

// Ratios rounded to 2 decimals, window_s whole seconds, times to the second; "at" when
// both readings share a time, else "cpu_at" and "memory_at".
std::string encode_load_annotation(const LoadAnnotation& load);

// cpu and memory: numbers in 0..1.05 (up to 1.05 is rounding noise and reads as 1);
// "at" (or both "cpu_at" and "memory_at"): RFC 3339; window_s: a number >= 0;
// source: a string. Keys it does not know are skipped (a newer agent may add some).
// Anything else is an error naming the key.
Result<LoadAnnotation> decode_load_annotation(std::string_view text);

// How old a reading may be when the reader has no setting of its own (scheduler
// usage.maxAge, descheduler --max-metric-age).
inline constexpr Duration kDefaultLoadMaxAge = std::chrono::minutes(5);

// Stale: a reading older than max_age, or more than max_age in the future (a clock
// gone wrong). The error names the reading, its time and the limit.
Status check_load_fresh(const LoadAnnotation& load, TimePoint now, Duration max_age);

}  // namespace weft::kube
