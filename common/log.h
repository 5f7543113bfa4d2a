#pragma once

// Logging for libraries: weft::log::warn("...{}...", x). Which backend prints is chosen
// at link time: weft_common forwards to spdlog's default logger (set up by
// setup_logging in every daemon); weft_common_lean writes warnings and errors to stderr
// and links no logging library, for the one-shot `weft-agent probe`.
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/result.h"

namespace weft {

// Configures the default spdlog logger for a binary: stderr, one line per event,
// "<time> <level> <binary>: message". level: trace|debug|info|warn|error.
// In weft_common only (the spdlog backend).
Status setup_logging(const std::string& binary, const std::string& level = "info");

namespace log {

enum class Level { trace, debug, info, warn, error };

// The backend's two calls.
bool enabled(Level level);
void write(Level level, std::string_view message);

template <class... Args>
void at(Level level, fmt::format_string<Args...> format, Args&&... args) {
  if (enabled(level)) write(level, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args>
void debug(fmt::format_string<Args...> format, Args&&... args) { at(Level::debug, format, std::forward<Args>(args)...); }
template <class... Args>
void info(fmt::format_string<Args...> format, Args&&... args) { at(Level::info, format, std::forward<Args>(args)...); }
template <class... Args>
void warn(fmt::format_string<Args...> format, Args&&... args) { at(Level::warn, format, std::forward<Args>(args)...); }
template <class... Args>
void error(fmt::format_string<Args...> format, Args&&... args) { at(Level::error, format, std::forward<Args>(args)...); }

}  // namespace log
}  // namespace weft
