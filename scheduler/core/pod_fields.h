// What the core reads of a v1 Pod, read either from a JSON tree (scenarios, tests) or
// straight from the object's text (the scheduler's cache, one watch event at a time,
// without building a tree). pod_info_from (snapshot.h) turns either into a PodInfo, so
// the rules live in one place and both readers only extract.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/client/json_reader.h"
#include "kube/objects.h"

namespace weft::kube {
class JsonCursor;
}

namespace weft::scheduler {

struct PodFields {
  std::string name, namespace_name, uid, resource_version, created;
  bool deleting = false;   // metadata.deletionTimestamp is set
  // Of metadata.annotations only the keys the core reads (pod_keys_read()); every label
  // (inter-pod affinity and spread select pods by them); in the order met.
  std::vector<std::pair<std::string, std::string>> annotations, labels;
  kube::PodResources resources;
  nlohmann::json priority;   // spec.priority as given (a number, or a string the rules parse); null: absent
  std::string priority_class, scheduler_name, node_name, phase;
  // spec.tolerations, spec.nodeSelector, spec.affinity, spec.topologySpreadConstraints
  // and the containers' host ports as one JSON text {"tolerations":…,"nodeSelector":…,
  // "affinity":…,"topologySpreadConstraints":…,"hostPorts":[…]}: pods with equal texts
  // are filtered alike, so it is decoded only for the first pod of a template.
  std::string constraints;
  bool scheduling_gated = false;   // spec.schedulingGates is a non-empty list
  bool resource_claims = false;    // spec.resourceClaims is a non-empty list (DRA)
  std::string scheduled_time;   // lastTransitionTime of the PodScheduled condition when True
  std::string start_time;       // status.startTime
  std::string volumes;          // spec.volumes as JSON text ("" or "null": none); storage.h decodes it
  std::string scheduling_group; // spec.schedulingGroup.podGroupName (a scheduling.k8s.io PodGroup)
};

// The annotation and label keys PodFields keeps.
const std::vector<std::string>& pod_keys_read();

// Reads more of a pod in the text reader's one pass (the descheduler's eviction facts):
// offered what the core passes over, at the cursor, and the text of what both read.
class PodTextExtension {
 public:
  enum class Section { Top, Metadata, Spec, Status };
  virtual ~PodTextExtension() = default;
  // A section (or the whole pod, Top) is read again from its start: a later copy of a
  // member replaces the earlier one, as a tree keeps it.
  virtual void restart(Section) {}
  // Annotation keys kept in PodFields::annotations beside pod_keys_read().
  virtual bool keeps_annotation(std::string_view) const { return false; }
  // A member the core does not read (of the pod itself at Top), at the cursor: read it or pass over.
  virtual Status member(Section, std::string_view key, kube::JsonCursor& c) = 0;
  // A member of spec.containers[index] the core does not read.
  virtual Status container_member(size_t index, std::string_view key, kube::JsonCursor& c) = 0;
  // The text of a member the core reads too (spec.affinity, status.conditions).
  virtual Status also(Section, std::string_view key, std::string_view text) = 0;
};

// Errors name the field ("spec.nodeName: 5 is not a string"), not the pod. The text reader
// builds no tree; what it refuses it hands to the tree reader, whose verdict and words
// stand, so the two refuse exactly the same inputs.
Result<PodFields> pod_fields_of(const nlohmann::json& pod);
// `checked`: the text was checked as JSON already (an informer's raw object), so what is
// skipped is only scanned for its end.
// `more`: reads the rest of what its caller needs in the same pass; it has read the pod
// (as pod_fields_of reads it) when this returns fields.
Result<PodFields> pod_fields_of_text(std::string_view pod_text, bool checked = false, PodTextExtension* more = nullptr);
// The same into `out` (left unspecified on an error): a reader that decodes pod after pod
// into one PodFields keeps its texts' and lists' room instead of allocating them per pod.
Status pod_fields_of_text(std::string_view pod_text, PodFields& out, bool checked = false,
                          PodTextExtension* more = nullptr);

// A resource list ("cpu": "4", ...) from its JSON text; "null" is an empty one. Errors
// name `field` and the resource, as parse_resource_list's do.
Result<kube::ResourceList> resource_list_of_text(std::string_view text, const std::string& field);

// What a text reader returns for text it refused: the tree reader's verdict and words, so
// both refuse exactly alike (a field met twice whose first value is of the wrong type,
// say, which a tree drops). Only bad input pays for the tree.
template <class Fields>
Result<Fields> tree_verdict(std::string_view text, Result<Fields> (*read_tree)(const nlohmann::json&)) {
  auto tree = kube::read_json(text);
  if (!tree) return tree.error();
  return kube::refuse_type_errors("", [&] { return read_tree(*tree); });
}

// The tree PodFields::constraints stands for, as kube::tolerations_of_pod,
// kube::NodeAffinity::from_pod and pod_contract_of read it: {"spec": {...}, "hostPorts": […]}.
Result<nlohmann::json> constraints_pod(const std::string& constraints);

}  // namespace weft::scheduler
