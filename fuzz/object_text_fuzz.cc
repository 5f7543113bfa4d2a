// A Pod's and a Node's text as the scheduler's cache reads them (pod_fields_of_text,
// node_fields_of_text, no tree) against the same text parsed to a tree and read by
// pod_fields_of, node_fields_of: both refuse it, or both give the same record; and the
// same over text known to be JSON (`checked`). Also the identity an informer keys raw
// objects by, against key_of(tree).
#include <nlohmann/json.hpp>

#include "fuzz/fuzz.h"
#include "kube/client/json_cursor.h"
#include "kube/client/object_text.h"
#include "kube/objects.h"
#include "scheduler/core/node_fields.h"
#include "scheduler/core/pod_fields.h"
#include "scheduler/core/snapshot.h"

namespace {

using nlohmann::json;

json record(const weft::scheduler::PodInfo& p, const std::string& constraints) {
  auto c = weft::scheduler::constraints_pod(constraints);
  return {p.key, std::string(p.group), weft::kube::to_json(p.request), p.priority, std::string(p.priority_class),
          std::string(p.node), std::string(p.phase), std::string(p.scheduler_name), p.terminating,
          p.preemptable ? json(*p.preemptable) : json(), std::string(p.task_role),
          p.scheduled_at ? json(p.scheduled_at->time_since_epoch().count()) : json(), c ? *c : json(c.message())};
}

json volumes_record(const weft::scheduler::PodInfo& p) {
  json out = json::array();
  if (p.volumes)
    for (const auto& v : p.volumes->volumes) out.push_back({v.name, v.claim, v.ephemeral, v.csi_driver});
  return out;
}

json node_record(const weft::scheduler::NodeInfo& n) {
  json labels = json::array(), taints = json::array();
  for (const auto& [k, v] : n.labels) labels.push_back({std::string(k), std::string(v)});
  for (const auto& t : n.taints) taints.push_back({t.key, t.value, t.effect});
  return {n.name, labels, weft::kube::to_json(n.allocatable), taints, n.ready, n.unschedulable, n.load.has_value(),
          n.load_error};
}

void check_node(const std::string& text, const json& tree) {
  auto fields = weft::kube::refuse_type_errors("", [&] { return weft::scheduler::node_fields_of(tree); });
  auto raw = weft::scheduler::node_fields_of_text(text);
  auto scanned = weft::scheduler::node_fields_of_text(text, /*checked=*/true);
  weft::fuzz::check(fields.ok() == raw.ok() && raw.ok() == scanned.ok(), "the node readers refuse the same nodes");
  if (!fields) return;
  for (auto* f : {&*raw, &*scanned})
    weft::fuzz::check(f->kind == fields->kind && f->arrival == fields->arrival,
                      "every node reader reads the kind and the arrival annotation alike");
  json records[3];
  int i = 0;
  for (auto* f : {&*fields, &*raw, &*scanned}) {
    auto n = weft::kube::refuse_type_errors("", [&] { return weft::scheduler::node_info_from(std::move(*f)); });
    records[i++] = n ? node_record(*n) : json(n.message());
  }
  weft::fuzz::check(records[0] == records[1] && records[1] == records[2], "every node reader gives the same node");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = weft::fuzz::text(data, size);
  const json tree = json::parse(text, nullptr, false);
  // The kind hint (read without checking) is a view into the text, whatever the text; over
  // an object whose kind it finds, it is the kind the tree keeps unless a key repeats
  // (plainly, or spelled with escapes).
  const std::string_view hint = weft::kube::json_plain_string_member(text, "kind");
  weft::fuzz::check(hint.empty() || (hint.data() >= text.data() && hint.data() + hint.size() <= text.data() + text.size()),
                    "the kind hint points into the text");
  if (!hint.empty() && tree.is_object() && tree.contains("kind") && tree["kind"].is_string() &&
      tree["kind"].get<std::string>() != hint)
    weft::fuzz::check(text.find("\"kind\"") != text.rfind("\"kind\"") || text.find('\\') != std::string::npos,
                      "the kind hint is the object's kind");
  auto raw = weft::scheduler::pod_fields_of_text(text);
  if (tree.is_discarded() || !tree.is_object()) {
    weft::fuzz::check(!raw.ok(), "text that is not a JSON object is refused");
    weft::fuzz::check(!weft::kube::identity_of(text).ok(), "identity_of refuses what is not a JSON object");
    return 0;
  }
  check_node(text, tree);
  // An object inside a list or an event never opens with a byte-order mark, which only
  // a whole document may (read_json skips it).
  const bool bom = !text.empty() && static_cast<unsigned char>(text[0]) == 0xEF;
  auto id = weft::kube::identity_of(text);
  if (!bom) weft::fuzz::check(id.ok() && id->key() == weft::kube::key_of(tree) &&
                        id->resource_version == weft::kube::metadata_string(tree, "resourceVersion"),
                    "identity_of reads the key and version key_of reads from the tree");
  // Over text known to be JSON, the cursor that only scans what it skips reads the same.
  auto scanned = weft::scheduler::pod_fields_of_text(text, /*checked=*/true);
  weft::fuzz::check(scanned.ok() == raw.ok(), "reading checked text refuses what reading it unchecked refuses");
  if (raw) weft::fuzz::check(scanned->constraints == raw->constraints && scanned->name == raw->name &&
                                 scanned->resources.containers.size() == raw->resources.containers.size(),
                             "reading checked text gives what reading it unchecked gives");
  auto fields = weft::kube::refuse_type_errors("", [&] { return weft::scheduler::pod_fields_of(tree); });
  weft::fuzz::check(fields.ok() == raw.ok(), "the text and the tree readers refuse the same pods");
  if (!fields) return 0;
  const std::string tree_constraints = fields->constraints, raw_constraints = raw->constraints;
  auto a = weft::kube::refuse_type_errors("", [&] { return weft::scheduler::pod_info_from(std::move(*fields)); });
  auto b = weft::kube::refuse_type_errors("", [&] { return weft::scheduler::pod_info_from(std::move(*raw)); });
  weft::fuzz::check(a.ok() == b.ok(), "the rules refuse the same fields from either reader");
  if (a) weft::fuzz::check(record(*a, tree_constraints) == record(*b, raw_constraints), "both readers give the same pod");
  if (a) weft::fuzz::check(volumes_record(*a) == volumes_record(*b), "both readers give the same volumes");
  return 0;
}
