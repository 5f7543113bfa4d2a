// Pods' cgroup v2 groups on this node, found by their names, and the memory they use.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/load/load.h"

namespace weft::load {

// The pod a cgroup directory's name stands for, or nullopt for any other group:
//   kubepods-pod<uid>.slice, kubepods-<qos>-pod<uid>.slice  kubelet, systemd driver ('_' for '-' in the uid)
//   pod<uid>                                                 kubelet, cgroupfs driver
//   pod-<namespace>-<name>                                   weft-node-runtime (the demo)
std::optional<PodCgroup> parse_pod_cgroup_name(std::string_view name);

// The pod groups under each root, down to three levels (kubepods, QoS class, pod),
// not descending into a pod's own group. A root that does not exist is skipped.
std::vector<PodCgroup> find_pod_cgroups(const TextFiles& files, const std::vector<std::string>& roots);

// Where kubelet puts pods under a cgroup2 mount with the default --cgroup-root:
// MOUNT/kubepods.slice (systemd driver) and MOUNT/kubepods (cgroupfs driver).
std::vector<std::string> kubelet_pod_roots(const std::string& cgroup2_mount);

// A group's working set: memory.current minus the inactive_file of memory.stat (cgroup
// v2). Where the memory controller is not on the v2 hierarchy (a hybrid host), the same
// from cgroup v1 at v1_dir: memory.usage_in_bytes minus total_inactive_file. v1_dir ""
// when there is no v1 memory hierarchy.
Result<uint64_t> read_memory_working_set(const TextFiles& files, const std::string& v2_dir,
                                         const std::string& v1_dir);

}  // namespace weft::load
