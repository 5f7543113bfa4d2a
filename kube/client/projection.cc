#include "kube/client/projection.h"

namespace weft::kube {

using nlohmann::json;

void project(json& object, const json& keep) {
  if (keep.is_boolean() || !keep.is_object()) return;   // true: the whole subtree
  if (object.is_array()) {
    for (auto& element : object) project(element, keep);
    return;
  }
  if (!object.is_object()) return;
  for (auto it = object.begin(); it != object.end();) {
    auto rule = keep.find(it.key());
    if (rule == keep.end() || (rule->is_boolean() && !rule->get<bool>())) {
      it = object.erase(it);
      continue;
    }
    project(it.value(), *rule);
    ++it;
  }
}

}  // namespace weft::kube
