// probe_load() with the backends passed in, so tests can use fakes (load.h has the rest);
// its JSON is the probe's "load" object (docs/contracts.md).
#pragma once

#include <nlohmann/json.hpp>

#include "collectors/load/load.h"
#include "collectors/load/select.h"

namespace weft::load {

Result<nlohmann::json> probe_load(const LoadProbeOptions& options, const SourceFactories& factories);

}  // namespace weft::load
