// The Kubernetes descheduler's test builders (test/test_utils.go) as facts: nodes by
// millicores, memory bytes and pod count; pods with its owner setters, a mirror pod with
// local storage, a system-critical pod, a best-effort pod; its extended resource.
#pragma once

#include <map>
#include <string>

#include "tests/descheduler/fixtures.h"

namespace weft::descheduler::test {

inline const std::string kExt = "example.com/foo";

inline json unode(const std::string& name, const std::string& pods, bool unschedulable = false, int ext = 0,
                  std::map<std::string, std::string> labels = {}, const std::string& cpu = "4000m",
                  const std::string& memory = "3000") {
  json n = node(name, std::move(labels), cpu, memory, pods);
  if (unschedulable) n["spec"]["unschedulable"] = true;
  if (ext > 0) n["status"]["allocatable"][kExt] = std::to_string(ext);
  return n;
}

enum class Kind { RS, DS, PodOwner, Bare, Mirror, Critical, BestEffort };

// upstream's BuildTestPod with its setters: owner kinds, a mirror pod with local storage,
// a system-critical pod in kube-system, a best-effort pod (no requests).
inline json upod(const std::string& name, const std::string& node_name, Kind kind = Kind::RS,
                 const std::string& cpu = "400m", const std::string& memory = "0", int priority = 0) {
  PodSpec s{.cpu = cpu, .memory = memory, .priority = priority};
  if (kind == Kind::DS) s.owner_kind = "DaemonSet";
  if (kind == Kind::PodOwner || kind == Kind::Mirror || kind == Kind::Critical) s.owner_kind = "Pod";
  if (kind == Kind::Bare) s.owner_kind = "";
  if (kind == Kind::Mirror) s.local_storage = true;
  if (kind == Kind::Critical) {
    s.ns = "kube-system";
    s.priority = 2000000000;
  }
  json p = pod(name, node_name, s);
  if (kind == Kind::Mirror) p["metadata"]["annotations"]["kubernetes.io/config.mirror"] = "mirror";
  if (kind == Kind::BestEffort) p["spec"]["containers"][0]["resources"] = json::object();
  return p;
}

inline json with_ext(json p, int count) {
  p["spec"]["containers"][0]["resources"]["requests"][kExt] = std::to_string(count);
  return p;
}

}  // namespace weft::descheduler::test
