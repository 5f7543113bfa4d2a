#include "tests/deploy/render.h"

#include <filesystem>
#include <regex>

#include "kube/time.h"
#include "tests/support/process.h"

namespace weft::testing {

const char* const kOneLeafFabric = R"(
switchguid=0x0000000000000a01
Switch 8 "leaf1"
[1] "node1"[1]
[3] "smhost"[1]

caguid=0x0000000000001001
Hca 1 "node1"
[1] "leaf1"[1]

caguid=0x0000000000001f00
Hca 1 "smhost"
[1] "leaf1"[3]
)";

Rendered kustomize(const std::string& dir) {
  Rendered r;
  auto [code, out] = run_command({"kubectl", "kustomize", dir});
  if (code != 0) {
    r.error = "kubectl kustomize " + dir + " failed:\n" + out;
    return r;
  }
  r.text = out;
  try {
    for (const auto& doc : YAML::LoadAll(out))
      if (doc.IsMap()) r.objects.push_back(doc);
  } catch (const YAML::Exception& e) {
    r.error = std::string("kustomize output is not YAML: ") + e.what();
  }
  return r;
}

YAML::Node find_object(const Rendered& r, const std::string& kind, const std::string& name) {
  for (const auto& o : r.objects)
    if (o["kind"].as<std::string>("") == kind && o["metadata"]["name"].as<std::string>("") == name) return o;
  return YAML::Node();
}

std::vector<std::pair<std::string, YAML::Node>> containers(const Rendered& r) {
  std::vector<std::pair<std::string, YAML::Node>> out;
  for (const auto& o : r.objects) {
    const std::string kind = o["kind"].as<std::string>("");
    YAML::Node spec;
    if (kind == "Deployment" || kind == "DaemonSet" || kind == "StatefulSet" || kind == "Job") {
      spec = o["spec"]["template"]["spec"];
    } else if (kind == "CronJob") {
      spec = o["spec"]["jobTemplate"]["spec"]["template"]["spec"];
    } else {
      continue;
    }
    for (const char* list : {"initContainers", "containers"})
      if (spec[list])
        for (const auto& c : spec[list])
          out.push_back({kind + "/" + o["metadata"]["name"].as<std::string>() + "/" + c["name"].as<std::string>(), c});
  }
  return out;
}

std::string project_version() {
  std::smatch m;
  const std::string text = read_file(source_path("CMakeLists.txt"));
  if (!std::regex_search(text, m, std::regex(R"(project\(weft VERSION ([0-9.]+))"))) return "";
  return m[1];
}

void write_overlay(const std::string& overlay_dir, const std::vector<std::string>& deploy_folders,
                   const std::string& extra_lines) {
  std::filesystem::create_directories(overlay_dir);
  std::string text = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n";
  for (const auto& f : deploy_folders)
    text += "  - " + std::filesystem::relative(source_path(f), overlay_dir).string() + "\n";
  write_file(overlay_dir + "/kustomization.yaml", text + extra_lines);
}

namespace {

using nlohmann::json;

json load_node(const std::string& name, double cpu) {
  json load = {{"cpu", cpu}, {"memory", cpu}, {"window_s", 60}, {"source", "ebpf"},
               {"at", kube::format_rfc3339(std::chrono::system_clock::now())}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"annotations", {{"weft.dev/load", load.dump()}}}}},
          {"status",
           {{"allocatable", {{"cpu", "16"}, {"memory", "64Gi"}, {"pods", "110"}}},
            {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

json replica_pod(const std::string& name, int priority) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"ownerReferences", json::array({{{"apiVersion", "apps/v1"}, {"kind", "ReplicaSet"}, {"name", "web"},
                                              {"uid", "rs-web"}, {"controller", true}}})}}},
          {"spec",
           {{"nodeName", "hot"},
            {"priority", priority},
            {"containers", json::array({{{"name", "c"}, {"image", "x"},
                                         {"resources", {{"requests", {{"cpu", "2"}, {"memory", "1Gi"}}}}}}})}}},
          {"status", {{"phase", "Running"}, {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}}}};
}

}  // namespace

json hot_and_cool_cluster() {
  json items = json::array({load_node("hot", 0.97), load_node("cool", 0.05)});
  for (int i = 0; i < 4; ++i) items.push_back(replica_pod("web-" + std::to_string(i), 0));
  items.push_back(replica_pod("vip", 50000));
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
}

}  // namespace weft::testing
