// Test support for deploy/: renders a kustomization with `kubectl kustomize` and finds
// objects and containers in the result.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace weft::testing {

struct Rendered {
  std::string error;                 // non-empty when kustomize failed (with its output)
  std::string text;
  std::vector<YAML::Node> objects;
};

// `kubectl kustomize DIR` (DIR absolute).
Rendered kustomize(const std::string& dir);
// The object of that kind and name, or a null node.
YAML::Node find_object(const Rendered& r, const std::string& kind, const std::string& name);
// Every container (and init container) of every workload: {"Kind/name/container", node}.
std::vector<std::pair<std::string, YAML::Node>> containers(const Rendered& r);
// An ibsim fabric: node1 and the subnet manager's host smhost on one leaf switch.
extern const char* const kOneLeafFabric;
// A kube-lite state (JSON List): node "hot" (97 % busy) and "cool" (5 %) with their agents'
// weft.dev/load annotations written now, four ReplicaSet pods and a high-priority one on hot.
nlohmann::json hot_and_cool_cluster();
// The project version from CMakeLists.txt (project(weft VERSION x.y.z)).
std::string project_version();
// A kustomization in `overlay_dir` that includes the given deploy/ folders (paths relative
// to the source tree, e.g. "deploy/agent") with extra kustomization lines.
void write_overlay(const std::string& overlay_dir, const std::vector<std::string>& deploy_folders,
                   const std::string& extra_lines);

}  // namespace weft::testing
