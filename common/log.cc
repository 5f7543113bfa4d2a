#include "common/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

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

}  // namespace weft
