#include "kube/client/kubeconfig_merge.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace weft::kube {
namespace {

void make_absolute(YAML::Node map, const std::string& key, const std::filesystem::path& dir, bool only_with_slash) {
  if (!map.IsMap() || !map[key] || !map[key].IsScalar()) return;
  const std::string value = map[key].as<std::string>();
  if (value.empty() || value[0] == '/') return;
  if (only_with_slash && value.find('/') == std::string::npos) return;   // a PATH lookup
  map[key] = (dir / value).lexically_normal().string();
}

void resolve_paths(YAML::Node entry, const std::string& list, const std::filesystem::path& dir) {
  if (list == "clusters") {
    make_absolute(entry["cluster"], "certificate-authority", dir, false);
  } else if (list == "users") {
    YAML::Node user = entry["user"];
    for (const char* key : {"client-certificate", "client-key", "tokenFile"}) make_absolute(user, key, dir, false);
    if (user.IsMap() && user["exec"]) make_absolute(user["exec"], "command", dir, true);
  }
}

}  // namespace

Result<std::string> merge_kubeconfigs(const std::vector<std::string>& paths) {
  YAML::Node merged(YAML::NodeType::Map);
  merged["apiVersion"] = "v1";
  merged["kind"] = "Config";
  const char* lists[] = {"clusters", "users", "contexts"};
  for (const char* list : lists) merged[list] = YAML::Node(YAML::NodeType::Sequence);
  std::map<std::string, std::set<std::string>> seen;
  std::string current;
  for (const auto& path : paths) {
    std::ifstream in(path);
    if (!in) return make_error("kubeconfig " + path + " (from $KUBECONFIG): cannot read it");
    std::stringstream text;
    text << in.rdbuf();
    YAML::Node root;
    try {
      root = YAML::Load(text.str());
    } catch (const YAML::Exception& e) {
      return make_error("kubeconfig " + path + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    if (root.IsNull()) continue;   // an empty file adds nothing, as for kubectl
    if (!root.IsMap()) return make_error("kubeconfig " + path + ": not a kubeconfig (top level is not a map)");
    const auto dir = std::filesystem::absolute(path).parent_path();
    for (const char* list : lists) {
      const YAML::Node seq = root[list];
      if (!seq || seq.IsNull()) continue;
      if (!seq.IsSequence()) return make_error("kubeconfig " + path + ": field '" + list + "': not a list");
      for (size_t i = 0; i < seq.size(); ++i) {
        YAML::Node entry = YAML::Clone(seq[i]);
        if (!entry.IsMap() || !entry["name"] || !entry["name"].IsScalar())
          return make_error("kubeconfig " + path + ": field '" + list + "[" + std::to_string(i) + "].name': missing");
        if (!seen[list].insert(entry["name"].as<std::string>()).second) continue;
        resolve_paths(entry, list, dir);
        merged[list].push_back(entry);
      }
    }
    if (current.empty() && root["current-context"] && root["current-context"].IsScalar())
      current = root["current-context"].as<std::string>();
  }
  if (!current.empty()) merged["current-context"] = current;
  YAML::Emitter out;
  out << merged;
  return std::string(out.c_str());
}

}  // namespace weft::kube
