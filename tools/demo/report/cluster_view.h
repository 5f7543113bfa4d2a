// The demo's view of the cluster, read from `kubectl get ... -o json` lists: nodes with
// their weft.dev/ labels and load, pods with their job and node, and the jobs (PodGroups
// and plain pods) with what they ask of the fabric.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/quantity.h"

namespace weft::demo {

// Every demo pod carries this label naming its job (a PodGroup, or the plain pods' app).
inline constexpr const char* kJobLabel = "weft.dev/demo-job";

struct NodeView {
  std::string name;
  std::string fabric, leaf, spine;     // weft.dev/ib-* labels ("" when missing)
  std::optional<double> cpu;           // weft.dev/load annotation
  bool control_plane = false;          // tainted NoSchedule, no agent
  weft::kube::ResourceList allocatable;
  weft::kube::ResourceList requested;  // by every bound pod not yet finished, demo's or not
};

struct PodView {
  std::string key;                     // ns/name
  std::string name;
  std::string job;
  std::string node;                    // "" when pending
  std::string phase;
  weft::kube::ResourceList requests;   // summed over its containers
  int priority = 0;                    // spec.priority (set by the API from its PriorityClass)
};

struct JobView {
  std::string name;
  std::string kind;                    // "gang", "hard-tier gang", "plain"
  int min_member = 0;                  // 0 for plain pods
  bool same_cluster = false;           // weft.dev/ib-cluster: same
  int hard_tier = 0;                   // networkTopology hard highestTierAllowed, 0 = none
  std::vector<size_t> pods;            // indices into ClusterView::pods
};

struct ClusterView {
  std::map<std::string, NodeView> nodes;
  std::vector<PodView> pods;
  std::map<std::string, JobView> jobs;
  const NodeView* node(const std::string& name) const;
};

// nodes/pods/podgroups: the JSON of `kubectl get X -o json` (a List); podgroups may be null.
Result<ClusterView> read_cluster(const nlohmann::json& nodes, const nlohmann::json& pods,
                                 const nlohmann::json& podgroups);
Result<nlohmann::json> read_json_file(const std::string& path);

}  // namespace weft::demo
