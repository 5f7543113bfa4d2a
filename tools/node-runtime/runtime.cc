#include "tools/node-runtime/runtime.h"

#include <sys/stat.h>

#include <cmath>

#include <spdlog/spdlog.h>

#include "kube/objects.h"
#include "tools/node-runtime/pod_spec.h"

namespace weft::noderuntime {

namespace {
std::string uid_of(const nlohmann::json& pod) {
  const auto& meta = pod.value("metadata", nlohmann::json::object());
  std::string uid = meta.value("uid", "");
  return uid.empty() ? weft::kube::key_of(pod) : uid;
}
bool being_deleted(const nlohmann::json& pod) {
  return pod.contains("metadata") && pod["metadata"].contains("deletionTimestamp") &&
         !pod["metadata"]["deletionTimestamp"].is_null();
}
}  // namespace

Runtime::Runtime(weft::kube::Client& client, RuntimeOptions options)
    : client_(client), options_(std::move(options)) {}

Status Runtime::prepare() {
  for (const auto& node : options_.nodes) {
    const std::string dir = options_.cgroup_root + "/" + node;
    struct stat st;
    if (::stat(dir.c_str(), &st) == 0) continue;
    if (auto s = make_group(dir); !s) return wrap(s.error(), "node " + node);
    created_node_groups_.insert(dir);
  }
  return {};
}

std::string Runtime::group_of(const nlohmann::json& pod) const {
  return options_.cgroup_root + "/" + pod["spec"].value("nodeName", "") + "/" + pod_cgroup_name(pod);
}

void Runtime::on_pod(const nlohmann::json& pod) {
  const std::string uid = uid_of(pod);
  const bool run = should_run(pod, options_.nodes);
  bool known = false;
  {
    std::lock_guard lock(mu_);
    known = by_uid_.count(uid) > 0;
  }
  if (run && !known) {
    start(uid, pod);
  } else if (run && known) {
    restart_if_changed(uid, pod);
  } else if (!run && known) {
    stop(uid, being_deleted(pod) ? "deleted" : "finished");
  }
  // A graceful delete waits for the kubelet: ours has stopped the process, so finish it.
  const std::string node = pod.value("spec", nlohmann::json::object()).value("nodeName", "");
  if (being_deleted(pod) && options_.nodes.count(node)) {
    auto removed = client_.remove(weft::kube::resources::pods(), weft::kube::namespace_of(pod),
                                  weft::kube::name_of(pod), /*ignore_missing=*/true);
    if (!removed) spdlog::warn("pod {}: finishing its deletion: {}", weft::kube::key_of(pod), removed.message());
  }
}

void Runtime::on_pod_deleted(const nlohmann::json& pod) {
  const std::string uid = uid_of(pod);
  std::lock_guard lock(mu_);
  if (by_uid_.count(uid)) {
    auto it = by_uid_.find(uid);
    spdlog::info("pod {}/{} on {}: deleted, stopping pid {}", it->second.ns, it->second.name, it->second.node,
                 it->second.process.pid());
    it->second.process.stop();
    if (auto s = remove_group(it->second.group); !s) spdlog::warn("{}", s.message());
    by_uid_.erase(it);
  }
}

void Runtime::start(const std::string& uid, const nlohmann::json& pod) {
  const std::string key = weft::kube::key_of(pod);
  auto cores = cpu_share(pod, options_.cpu_scale);
  if (!cores) {
    spdlog::error("{}", cores.message());
    write_status(weft::kube::namespace_of(pod), weft::kube::name_of(pod),
                 failed_status(pod, cores.message(), rfc3339_now()));
    return;
  }
  const double share = std::min(*cores, 1.0);
  const std::string group = group_of(pod);
  if (auto s = make_group(group); !s) {
    spdlog::error("pod {}: {}", key, s.message());
    return;
  }
  auto process = PodProcess::start(options_.self_exe, group, share);
  if (!process) {
    spdlog::error("pod {}: start: {}", key, process.message());
    (void)remove_group(group);
    return;
  }
  const std::string node = pod["spec"].value("nodeName", "");
  spdlog::info("pod {} on {}: started pid {} burning {:.4f} cores in {}", key, node, process->pid(), share, group);
  Entry e{weft::kube::namespace_of(pod), weft::kube::name_of(pod), node, group, *process, share, false, pod};
  const bool written =
      write_status(e.ns, e.name, running_status(pod, process->pid(), rfc3339_now()));
  e.status_written = written;
  std::lock_guard lock(mu_);
  by_uid_.emplace(uid, std::move(e));
}

void Runtime::restart_if_changed(const std::string& uid, const nlohmann::json& pod) {
  auto cores = cpu_share(pod, options_.cpu_scale);
  if (!cores) return;
  const double share = std::min(*cores, 1.0);
  std::lock_guard lock(mu_);
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end() || std::abs(it->second.cores - share) < 1e-9) return;
  it->second.process.stop();
  auto process = PodProcess::start(options_.self_exe, it->second.group, share);
  if (!process) {
    spdlog::error("pod {}/{}: restart: {}", it->second.ns, it->second.name, process.message());
    return;
  }
  spdlog::info("pod {}/{} on {}: CPU use changed from {:.4f} to {:.4f} cores (pid {})", it->second.ns,
               it->second.name, it->second.node, it->second.cores, share, process->pid());
  it->second.process = *process;
  it->second.cores = share;
}

void Runtime::stop(const std::string& uid, const char* why) {
  std::lock_guard lock(mu_);
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return;
  spdlog::info("pod {}/{} on {}: {}, stopping pid {}", it->second.ns, it->second.name, it->second.node, why,
               it->second.process.pid());
  it->second.process.stop();
  if (auto s = remove_group(it->second.group); !s) spdlog::warn("{}", s.message());
  by_uid_.erase(it);
}

bool Runtime::write_status(const std::string& ns, const std::string& name, const nlohmann::json& status) {
  auto r = client_.read_modify_write(
      weft::kube::resources::pods(), ns, name,
      [&status](nlohmann::json& pod) -> Status {
        pod["status"] = status;
        return {};
      },
      "status");
  if (!r) {
    spdlog::warn("pod {}/{}: status: {}", ns, name, r.message());
    return false;
  }
  return true;
}

void Runtime::tick() {
  std::vector<std::string> retry;
  std::vector<std::tuple<std::string, std::string, nlohmann::json, int>> ended;
  {
    std::lock_guard lock(mu_);
    for (auto it = by_uid_.begin(); it != by_uid_.end();) {
      if (auto code = it->second.process.poll()) {
        spdlog::warn("pod {}/{} on {}: process {} exited with {}", it->second.ns, it->second.name, it->second.node,
                     it->second.process.pid(), *code);
        ended.emplace_back(it->second.ns, it->second.name, it->second.pod, *code);
        (void)remove_group(it->second.group);
        it = by_uid_.erase(it);
        continue;
      }
      if (!it->second.status_written) retry.push_back(it->first);
      ++it;
    }
  }
  for (auto& [ns, name, pod, code] : ended) {
    write_status(ns, name, failed_status(pod, "process exited with " + std::to_string(code), rfc3339_now()));
  }
  for (const auto& uid : retry) {
    // The informer thread may have stopped it meanwhile: look it up again.
    std::string ns, name;
    nlohmann::json pod;
    int pid = 0;
    {
      std::lock_guard lock(mu_);
      auto it = by_uid_.find(uid);
      if (it == by_uid_.end()) continue;
      ns = it->second.ns;
      name = it->second.name;
      pod = it->second.pod;
      pid = it->second.process.pid();
    }
    if (write_status(ns, name, running_status(pod, pid, rfc3339_now()))) {
      std::lock_guard lock(mu_);
      if (auto it = by_uid_.find(uid); it != by_uid_.end()) it->second.status_written = true;
    }
  }
}

void Runtime::shutdown() {
  std::lock_guard lock(mu_);
  for (auto& [uid, e] : by_uid_) {
    e.process.stop();
    (void)remove_group(e.group);
  }
  by_uid_.clear();
  for (const auto& dir : created_node_groups_) {
    if (auto s = remove_group(dir); !s) spdlog::warn("{}", s.message());
  }
}

size_t Runtime::running() const {
  std::lock_guard lock(mu_);
  return by_uid_.size();
}

}  // namespace weft::noderuntime
