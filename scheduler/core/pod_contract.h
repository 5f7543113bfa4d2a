// The parts of a pod's spec kube-scheduler's default profile reads beyond requests, taints
// and required node affinity: inter-pod (anti-)affinity, topology spread constraints,
// host ports and preferred node affinity. Decoded once per pod template (they are part of
// PodConstraints); the rules that use them live in the plugins that filter and score.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/selector.h"

namespace weft::scheduler {

// A PodAffinityTerm (required, or the podAffinityTerm of a weighted preferred one).
struct PodAffinityTerm {
  std::optional<kube::LabelSelector> selector;             // absent: selects no pod
  std::vector<std::string> namespaces;                     // with no namespaceSelector and none listed: the pod's own
  std::optional<kube::LabelSelector> namespace_selector;   // {}: every namespace
  std::string topology_key;
  std::vector<std::string> match_label_keys, mismatch_label_keys;
  int32_t weight = 0;                                      // preferred terms only (1..100)
};

struct SpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  bool hard = true;                                        // DoNotSchedule; false: ScheduleAnyway
  std::optional<kube::LabelSelector> selector;             // absent: counts no pod
  int32_t min_domains = 1;                                 // absent: 1
  bool honor_node_affinity = true;                         // nodeAffinityPolicy (default Honor)
  bool honor_taints = false;                               // nodeTaintsPolicy (default Ignore)
  std::vector<std::string> match_label_keys;
};

// A container's hostPort as the node sees it (hostIP "" is 0.0.0.0, protocol "" is TCP).
struct HostPort {
  std::string ip = "0.0.0.0";
  std::string protocol = "TCP";
  int32_t port = 0;
  bool conflicts(const HostPort& other) const {
    return port == other.port && protocol == other.protocol &&
           (ip == other.ip || ip == "0.0.0.0" || other.ip == "0.0.0.0");
  }
};

struct PreferredNodeTerm {
  int32_t weight = 0;
  kube::NodeAffinity term;   // the preference as a one-term required affinity
};

struct PodContract {
  std::vector<PodAffinityTerm> affinity, anti_affinity;                     // required
  std::vector<PodAffinityTerm> preferred_affinity, preferred_anti_affinity;   // weighted
  std::vector<SpreadConstraint> spread;
  std::vector<HostPort> host_ports;
  std::vector<PreferredNodeTerm> preferred_node;
  bool empty() const {
    return affinity.empty() && anti_affinity.empty() && preferred_affinity.empty() &&
           preferred_anti_affinity.empty() && spread.empty() && host_ports.empty() && preferred_node.empty();
  }
};

// From {"spec": {"affinity": …, "topologySpreadConstraints": …}} and the host ports read
// from the containers. Errors name the field.
Result<PodContract> pod_contract_of(const nlohmann::json& pod, std::vector<HostPort> host_ports);

// The host ports of one container's `ports` list (entries with hostPort > 0), and a list
// of them as the JSON array kept in a pod's constraints signature (read back by the former).
Result<std::vector<HostPort>> host_ports_of_json(const nlohmann::json& ports);
nlohmann::json host_ports_json(const std::vector<HostPort>& ports);

// What matchLabelKeys (key In the pod's value) and mismatchLabelKeys (key NotIn the pod's
// value) add to a term's selector, as the API server merges them; keys the pod lacks are skipped.
std::vector<kube::Requirement> label_key_requirements(const std::vector<std::string>& match_keys,
                                                      const std::vector<std::string>& mismatch_keys,
                                                      const kube::InternedLabels& labels);

}  // namespace weft::scheduler
