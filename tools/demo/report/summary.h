// The demo's closing summary (summary.json, a table for the terminal) and its picture
// (Graphviz dot: fabrics, spines, leaves, nodes coloured by job, the hot node marked),
// from the files the steps left in the state directory:
//   fabrics.json    [{"name","id","shape","hosts","sms":[{"host","guid","priority","role"}]}]
//   nodes-placed.json, pods-placed.json, podgroups.json   after step 4 (kubectl -o json)
//   hot.json        {"node","holds","pods","fabric"} from pick-hot
//   plan.json       the descheduler's plan {"nodes","evictions","skipped"}
//   nodes-after.json, pods-after.json                    after re-placement
//   load-before.json, load-after.json                    {"node": cpu ratio} from Prometheus
//   failover.json   {"fabric","old_master","new_master","seconds","labels_unchanged"}
//   steps.json      [{"step","title","seconds","ok"}]
// Missing files leave their part of the summary empty (a failed run still reports).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::demo {

Result<nlohmann::json> build_summary(const std::string& state_dir);
std::string summary_table(const nlohmann::json& summary);
std::string topology_dot(const nlohmann::json& summary);

}  // namespace weft::demo
