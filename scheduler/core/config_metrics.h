// The top-level `metrics` key of volcano-scheduler.conf (Volcano: map[string]string,
// MetricsConfiguration): where Volcano's scheduler reads node usage from (`type`
// prometheus | prometheus_adaptor | elasticsearch, with `address`, `interval`, ...).
// weft's usage plugin reads node usage from the weft.dev/load annotation that weft-agent
// writes, so it queries no metrics system: an empty or absent `metrics` is accepted,
// anything else is refused with a message naming the key.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::scheduler {

Status check_metrics_section(const nlohmann::json& metrics, const std::string& where);

}  // namespace weft::scheduler
