// The weft.dev/ labels and annotations a Node should carry, computed from the probe,
// and the JSON merge patch that takes the Node as the API has it to that state.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/keys.h"
#include "node-agent/daemon/snapshot.h"

namespace weft::agent {


struct NodeMetadata {
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  // NVML's NVLink domain when NVML answered ("" for none): it wins over the Node's
  // nvidia.com/gpu.clique label; unset: the label decides (merge_patch_for).
  std::optional<std::string> nvlink_domain;
};

// weft.dev/rdma, ib-fabric, ib-leaf, ib-spine, ib-rate-gbps and the ib-ports annotation.
// A value that is not a valid label value is left out (and named in `skipped`).
NodeMetadata desired_ib_metadata(const IbSnapshot& ib, std::string* skipped = nullptr);

// The weft.dev/load annotation (kube/load_annotation.h) for a sample taken at `at`.
std::string load_annotation(const LoadSnapshot& load, std::chrono::system_clock::time_point at);

struct PatchInputs {
  // The IB part; absent until the first good IB probe, in which case no IB key is
  // touched (an agent that has not looked yet must not delete what it does not know).
  const NodeMetadata* ib = nullptr;
  // The load annotation to write and the time of its sample; absent until the first
  // good load sample.
  std::optional<std::string> load;
  std::chrono::system_clock::time_point load_at{};
  std::chrono::seconds heartbeat{60};
  double load_threshold = 0.05;   // 5 points of cpu or memory
};

// The merge patch {"metadata":{"labels":{..},"annotations":{..}}} that sets changed
// weft.dev/ keys and nulls stale ones, never naming another key; null when nothing
// needs to change. `why` lists the changed keys for the log.
nlohmann::json merge_patch_for(const nlohmann::json& node, const PatchInputs& in, std::string* why = nullptr);

bool valid_label_value(const std::string& value);

// The weft.dev/nvlink-domain a Node with these labels gets: NVML's domain when NVML
// answered (ib.nvlink_domain, "" for none), else GPU feature discovery's nvidia.com/gpu.clique
// ("<cluster UUID>.<clique id>": the GPUs sharing one NVLink domain); "" when absent or not
// a label value. Published with the IB labels.
std::string nvlink_domain(const nlohmann::json& labels, const NodeMetadata& ib = {});

}  // namespace weft::agent
