// What the core reads of a v1 Node, from a JSON tree (scenarios) or straight from the
// object's text (the scheduler's cache), as pod_fields.h does for pods: node_info_from
// (snapshot.h) holds the rules for both.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::scheduler {

struct NodeFields {
  std::string kind;             // the object's kind, when a string
  std::string name, uid, resource_version, created;
  // metadata.labels in the order met (a value that is not a string as its JSON text).
  std::vector<std::pair<std::string, std::string>> labels;
  std::string load;             // the weft.dev/load annotation, when a string
  std::string arrival;          // the weft.dev/arrival-cycle annotation (scenarios), when a string
  bool unschedulable = false;   // spec.unschedulable is true
  // spec.taints, status.allocatable and status.capacity as JSON text ("null": absent).
  std::string taints = "null", allocatable = "null", capacity = "null";
  bool allocatable_given = false;   // status.allocatable is an object with members
  // status.conditions: whether it is a list, its length, and the first Ready's status.
  bool conditions_listed = false;
  size_t conditions = 0;
  std::optional<std::string> ready;
};

Result<NodeFields> node_fields_of(const nlohmann::json& node);
// `checked` as for pod_fields_of_text.
Result<NodeFields> node_fields_of_text(std::string_view node_text, bool checked = false);

}  // namespace weft::scheduler
