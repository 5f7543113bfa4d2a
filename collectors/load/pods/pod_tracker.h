// Keeps the pods' groups current between readings: a new group is watched on the
// backend when the backend attributes CPU time to cgroups itself (eBPF), a gone one is
// unwatched; each reading gets every pod's CPU time (the backend's count, else the
// group's cpu.stat) and working set. Used from the sampler's thread only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectors/load/counters.h"
#include "collectors/load/load.h"
#include "collectors/load/source.h"

namespace weft::load {

struct PodTrackerOptions {
  std::vector<std::string> roots;  // where pods' groups are looked for (pod_cgroups.h)
  std::string cgroup2_mount;
  std::string memory_v1_mount;     // "" when there is no cgroup v1 memory hierarchy
};

class PodTracker {
 public:
  // files must outlive the tracker.
  PodTracker(const TextFiles& files, PodTrackerOptions options);
  PodTracker(std::unique_ptr<TextFiles> files, PodTrackerOptions options);

  // Looks for the groups now. Returns true when the set of pods changed.
  bool refresh(LoadSource& source);
  // The pods' values in `counters`, a reading of that source taken after refresh();
  // ascending by id. A pod whose files are gone meanwhile is left out.
  std::vector<PodSample> sample(const LoadCounters& counters) const;
  // The pods found by the last refresh(), by id.
  std::map<uint32_t, PodCgroup> pods() const;

 private:
  struct Tracked {
    PodCgroup cgroup;
    bool on_backend = false;  // its CPU time comes from the backend's cgroup count
  };
  void forget(LoadSource& source, std::map<uint32_t, Tracked>::iterator it);

  std::unique_ptr<TextFiles> owned_files_;
  const TextFiles& files_;
  PodTrackerOptions options_;
  std::map<std::string, uint32_t> ids_;  // group directory -> id
  std::map<uint32_t, Tracked> pods_;
  uint32_t next_id_ = 1;
  bool warned_watch_ = false;
};

}  // namespace weft::load
