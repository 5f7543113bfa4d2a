// The spdlog backend of common/log.h, for every binary but weft-agent.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "common/log.h"

namespace weft {

Status setup_logging(const std::string& binary, const std::string& level) {
  auto lvl = spdlog::level::from_str(level);
  if (lvl == spdlog::level::off && level != "off") {
    return make_error("--log-level: unknown level '" + level + "' (trace|debug|info|warn|error)");
  }
  auto logger = spdlog::get(binary) ? spdlog::get(binary) : spdlog::stderr_color_mt(binary);
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %n: %v");
  logger->set_level(lvl);
  spdlog::set_default_logger(logger);
  return {};
}

namespace log {

namespace {
spdlog::level::level_enum to_spdlog(Level level) {
  switch (level) {
    case Level::trace: return spdlog::level::trace;
    case Level::debug: return spdlog::level::debug;
    case Level::info: return spdlog::level::info;
    case Level::warn: return spdlog::level::warn;
    case Level::error: return spdlog::level::err;
  }
  return spdlog::level::err;
}
}  // namespace

bool enabled(Level level) { return spdlog::default_logger_raw()->should_log(to_spdlog(level)); }
void write(Level level, std::string_view message) { spdlog::default_logger_raw()->log(to_spdlog(level), message); }

}  // namespace log
}  // namespace weft
