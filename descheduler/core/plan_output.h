// The plan as docs/contracts.md fixes it (JSON) and as a table for people.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "descheduler/core/planner.h"

namespace weft::descheduler {

// {"nodes":[{"name","cpu","memory","class"}],"evictions":[{"pod","from","to","reason"}],"skipped":[{"pod","reason"}]};
// when several balance plugins classified the nodes, each node entry also has "by":
// "profile/plugin" (a node then appears once per classification).
nlohmann::json plan_to_json(const Plan& plan);
std::string plan_to_table(const Plan& plan);

}  // namespace weft::descheduler
