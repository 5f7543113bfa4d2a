// The demo's stand-in for a kubelet: for pods bound to the nodes it serves it starts a
// burner process in the pod's own group under its node's cgroup, reports the pod Running
// and Ready through the status subresource, and stops the process and removes the group
// when the pod is deleted or evicted (finalising a graceful delete as a kubelet does).
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"
#include "tools/node-runtime/pod_process.h"

namespace weft::noderuntime {

struct RuntimeOptions {
  std::set<std::string> nodes;   // node names served
  std::string cgroup_root;       // node N's group is cgroup_root/N
  double cpu_scale = 0.01;       // real cores per requested core
  std::string self_exe;          // this binary, re-executed as `burn`
};

class Runtime {
 public:
  Runtime(weft::kube::Client& client, RuntimeOptions options);
  // Creates the node groups that are missing.
  Status prepare();
  // Informer events.
  void on_pod(const nlohmann::json& pod);
  void on_pod_deleted(const nlohmann::json& pod);
  // Periodic: pods whose process ended on their own are reported Failed; status writes
  // that failed are retried.
  void tick();
  // Stops every process and removes the groups this runtime created.
  void shutdown();
  size_t running() const;

 private:
  struct Entry {
    std::string ns, name, node, group;
    PodProcess process;
    double cores = 0;
    bool status_written = false;
    nlohmann::json pod;
  };
  std::string group_of(const nlohmann::json& pod) const;
  void start(const std::string& uid, const nlohmann::json& pod);
  void stop(const std::string& uid, const char* why);
  // The pod now asks for a different CPU use (weft.dev/demo-cpu changed): a new burner.
  void restart_if_changed(const std::string& uid, const nlohmann::json& pod);
  bool write_status(const std::string& ns, const std::string& name, const nlohmann::json& status);

  weft::kube::Client& client_;
  RuntimeOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> by_uid_;
  std::set<std::string> created_node_groups_;
};

}  // namespace weft::noderuntime
