// Keeps only the fields a reader uses, so an informer's cache holds those and nothing
// else (a pod as the API returns it is kilobytes of images, env, volumes and
// managedFields; the scheduler reads a few hundred bytes of it).
//
// A projection is a JSON tree of what to keep: `true` keeps the field whole, an object
// keeps those of its fields (applied to every element when the field is an array). A
// field not named is dropped. Example:
//   {"metadata": {"name": true}, "spec": {"containers": {"resources": true}}}
#pragma once

#include <nlohmann/json.hpp>

namespace weft::kube {

// To read text straight to its projection, without building what it drops: read_json
// (json_reader.h).
void project(nlohmann::json& object, const nlohmann::json& keep);

}  // namespace weft::kube
