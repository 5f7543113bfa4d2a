// Keeps only the fields a reader uses, so an informer's cache holds those and nothing
// else (a pod as the API returns it is kilobytes of images, env, volumes and
// managedFields; the scheduler reads a few hundred bytes of it).
//
// A projection is a JSON tree of what to keep: `true` keeps the field whole, an object
// keeps those of its fields (applied to every element when the field is an array). A
// field not named is dropped. Example:
//   {"metadata": {"name": true}, "spec": {"containers": {"resources": true}}}
#pragma once

#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube {

void project(nlohmann::json& object, const nlohmann::json& keep);

// JSON text straight to its projection: the tree project(parse(text), keep) gives,
// without building the parts it drops. `keep` null keeps everything. The error names
// the byte where the text stops being JSON, as nlohmann's parser does.
Result<nlohmann::json> parse_projected(std::string_view text, const nlohmann::json& keep);

}  // namespace weft::kube
