// Go-style durations ("90s", "5m", "1h30m", "250ms") as used in policies and flags.
#pragma once

#include <chrono>
#include <string>

#include "common/result.h"

namespace weft::descheduler {

using Seconds = std::chrono::duration<double>;

// "5m" -> 300 s. A bare number is seconds. Negative or malformed -> error naming the text.
Result<Seconds> parse_duration(const std::string& text);
// 300 s -> "5m0s"-free short form: "5m", "90s", "1h30m", "0.5s".
std::string format_duration(Seconds d);

}  // namespace weft::descheduler
