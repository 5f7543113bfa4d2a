#include "collectors/load/pods/pod_tracker.h"

#include <set>

#include "collectors/load/pods/pod_cgroups.h"
#include "common/log.h"

namespace weft::load {

PodTracker::PodTracker(const TextFiles& files, PodTrackerOptions options)
    : files_(files), options_(std::move(options)) {}

PodTracker::PodTracker(std::unique_ptr<TextFiles> files, PodTrackerOptions options)
    : owned_files_(std::move(files)), files_(*owned_files_), options_(std::move(options)) {}

void PodTracker::forget(LoadSource& source, std::map<uint32_t, Tracked>::iterator it) {
  if (it->second.on_backend) {
    if (auto s = source.unwatch_cgroup(it->second.cgroup.dir); !s) log::warn("load: pods: {}", s.message());
  }
  ids_.erase(it->second.cgroup.dir);
  pods_.erase(it);
}

bool PodTracker::refresh(LoadSource& source) {
  auto found = find_pod_cgroups(files_, options_.roots);
  bool changed = false;
  std::set<uint32_t> seen;
  for (auto& pod : found) {
    if (auto it = ids_.find(pod.dir); it != ids_.end()) {
      seen.insert(it->second);
      continue;
    }
    Tracked t;
    t.cgroup = std::move(pod);
    if (source.attributes_cgroups()) {
      auto watched = source.watch_cgroup(t.cgroup.dir);
      t.on_backend = static_cast<bool>(watched);
      // Past the backend's limit the pod is still measured, from its cpu.stat.
      if (!watched && !warned_watch_) {
        log::warn("load: pods: {}; such pods' CPU time comes from their cpu.stat", watched.message());
        warned_watch_ = true;
      }
    }
    log::debug("load: pod group {} found", t.cgroup.dir);
    const uint32_t id = next_id_++;
    ids_[t.cgroup.dir] = id;
    seen.insert(id);
    pods_.emplace(id, std::move(t));
    changed = true;
  }
  for (auto it = pods_.begin(); it != pods_.end();) {
    auto next = std::next(it);
    if (!seen.count(it->first)) {
      log::debug("load: pod group {} gone", it->second.cgroup.dir);
      forget(source, it);
      changed = true;
    }
    it = next;
  }
  return changed;
}

std::vector<PodSample> PodTracker::sample(const LoadCounters& counters) const {
  std::vector<PodSample> out;
  out.reserve(pods_.size());
  for (const auto& [id, t] : pods_) {
    PodSample s;
    s.id = id;
    s.cpu_from_backend = t.on_backend;
    if (t.on_backend) {
      auto it = counters.cgroup_busy_ns.find(t.cgroup.dir);
      if (it == counters.cgroup_busy_ns.end()) continue;
      s.cpu_ns = it->second;
    } else {
      auto ns = cgroup_cpu_usage_ns(files_, t.cgroup.dir);
      if (!ns) continue;  // the pod went since refresh()
      s.cpu_ns = *ns;
    }
    std::string v1_dir;
    if (!options_.memory_v1_mount.empty() && t.cgroup.dir.starts_with(options_.cgroup2_mount + "/")) {
      v1_dir = options_.memory_v1_mount + t.cgroup.dir.substr(options_.cgroup2_mount.size());
    }
    if (auto mem = read_memory_working_set(files_, t.cgroup.dir, v1_dir)) s.memory_bytes = *mem;
    out.push_back(s);
  }
  return out;
}

std::map<uint32_t, PodCgroup> PodTracker::pods() const {
  std::map<uint32_t, PodCgroup> out;
  for (const auto& [id, t] : pods_) out.emplace(id, t.cgroup);
  return out;
}

}  // namespace weft::load
