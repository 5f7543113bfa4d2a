// Realistic Node and Pod objects as a real API server returns them (managedFields,
// images, conditions, env, volumes), generated deterministically.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace weft::bench {

nlohmann::json make_node(int index, int resource_version);
nlohmann::json make_pod(int index, int nodes, int resource_version);

// A whole "kind: List" body, serialised item by item so the generator itself does not
// hold a tree of every object.
std::string make_list_body(const std::string& kind, int count, const std::function<nlohmann::json(int)>& make,
                           int resource_version);

}  // namespace weft::bench
