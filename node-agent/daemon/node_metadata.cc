#include "node-agent/daemon/node_metadata.h"

#include <cmath>

#include <fmt/format.h>

#include "kube/load_annotation.h"
#include "kube/workload.h"

namespace weft::agent {

namespace {

bool owned(const std::string& key) { return key.rfind(keys::kOwnedPrefix, 0) == 0; }


const nlohmann::json& field(const nlohmann::json& obj, const char* key) {
  static const nlohmann::json empty = nlohmann::json::object();
  if (!obj.is_object()) return empty;
  auto it = obj.find(key);
  return it == obj.end() || !it->is_object() ? empty : *it;
}

void put(std::map<std::string, std::string>& into, const std::string& key, const std::string& value,
         std::string* skipped) {
  if (value.empty()) return;
  if (!valid_label_value(value)) {
    if (skipped) *skipped += (skipped->empty() ? "" : ", ") + key + "=" + value;
    return;
  }
  into[key] = value;
}

}  // namespace

bool valid_label_value(const std::string& value) { return kube::valid_label_value(value); }

NodeMetadata desired_ib_metadata(const IbSnapshot& ib, std::string* skipped) {
  NodeMetadata m;
  for (const auto& [key, value] : ib.labels) {
    if (owned(key)) put(m.labels, key, value, skipped);
  }
  if (!m.labels.count(keys::kRdma)) m.labels[keys::kRdma] = ib.rdma.empty() ? "none" : ib.rdma;
  m.nvlink_domain = ib.nvlink_domain;
  if (!ib.ports.empty()) {
    nlohmann::json ports = nlohmann::json::array();
    for (const auto& p : ib.ports) ports.push_back(p.json);
    m.annotations[keys::kPortsAnnotation] = ports.dump();
  }
  return m;
}

std::string load_annotation(const LoadSnapshot& load, std::chrono::system_clock::time_point at) {
  kube::LoadAnnotation a;
  a.cpu = load.cpu;
  a.memory = load.memory;
  a.window_s = load.window_seconds;
  a.source = load.source;
  a.cpu_at = a.memory_at = at;
  return kube::encode_load_annotation(a);
}

namespace {

bool load_needs_write(const nlohmann::json& current, const PatchInputs& in) {
  if (!current.is_string()) return true;
  const std::string cur = current.get<std::string>();
  if (cur == *in.load) return false;
  auto was = kube::decode_load_annotation(cur);
  auto now = kube::decode_load_annotation(*in.load);
  if (!was || !now) return true;
  if (was->source != now->source) return true;
  if (std::fabs(was->cpu - now->cpu) > in.load_threshold + 1e-9) return true;
  if (std::fabs(was->memory - now->memory) > in.load_threshold + 1e-9) return true;
  return in.load_at - was->oldest() >= in.heartbeat;
}

void diff_map(const nlohmann::json& current, const std::map<std::string, std::string>& desired,
              const char* skip_key, nlohmann::json& out, std::string* why) {
  for (const auto& [k, v] : desired) {
    auto it = current.find(k);
    if (it == current.end() || !it->is_string() || it->get<std::string>() != v) {
      out[k] = v;
      if (why) *why += (why->empty() ? "" : " ") + k;
    }
  }
  for (auto it = current.begin(); it != current.end(); ++it) {
    if (owned(it.key()) && it.key() != skip_key && !desired.count(it.key())) {
      out[it.key()] = nullptr;
      if (why) *why += (why->empty() ? "-" : " -") + it.key();
    }
  }
}

}  // namespace

std::string nvlink_domain(const nlohmann::json& labels, const NodeMetadata& ib) {
  if (ib.nvlink_domain) return valid_label_value(*ib.nvlink_domain) ? *ib.nvlink_domain : "";
  auto it = labels.find(keys::kGpuClique);
  if (it == labels.end() || !it->is_string()) return "";
  const std::string clique = it->get<std::string>();
  return valid_label_value(clique) ? clique : "";
}

nlohmann::json merge_patch_for(const nlohmann::json& node, const PatchInputs& in, std::string* why) {
  const auto& meta = field(node, "metadata");
  const auto& labels = field(meta, "labels");
  const auto& annotations = field(meta, "annotations");
  nlohmann::json label_patch = nlohmann::json::object();
  nlohmann::json annotation_patch = nlohmann::json::object();
  if (in.ib) {
    auto wanted = in.ib->labels;
    if (auto domain = nvlink_domain(labels, *in.ib); !domain.empty()) wanted[keys::kNvlinkDomain] = domain;
    diff_map(labels, wanted, "", label_patch, why);
    diff_map(annotations, in.ib->annotations, keys::kLoadAnnotation, annotation_patch, why);
  }
  if (in.load) {
    auto it = annotations.find(keys::kLoadAnnotation);
    if (load_needs_write(it == annotations.end() ? nlohmann::json() : *it, in)) {
      annotation_patch[keys::kLoadAnnotation] = *in.load;
      if (why) *why += std::string(why->empty() ? "" : " ") + keys::kLoadAnnotation;
    }
  }
  if (label_patch.empty() && annotation_patch.empty()) return nullptr;
  nlohmann::json patch = {{"metadata", nlohmann::json::object()}};
  if (!label_patch.empty()) patch["metadata"]["labels"] = label_patch;
  if (!annotation_patch.empty()) patch["metadata"]["annotations"] = annotation_patch;
  return patch;
}

}  // namespace weft::agent
