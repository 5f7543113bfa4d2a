// cgroup v2: where it is mounted and a group's id (the kernfs node id that
// task->cgroups->dfl_cgrp->kn->id reports); resolve_cgroup_dir() is in load.h.
#pragma once

#include <cstdint>
#include <string>

#include "collectors/load/load.h"
#include "common/result.h"

namespace weft::load {

// Mount point of the cgroup2 file system in /proc/self/mounts text ("/sys/fs/cgroup"
// on a pure v2 host, "/sys/fs/cgroup/unified" on a hybrid one).
Result<std::string> parse_cgroup2_mount(const std::string& mounts_text);

// Mount point of the cgroup v1 hierarchy holding `controller` ("memory"), or an error
// when no v1 hierarchy has it (a pure v2 host).
Result<std::string> parse_cgroup1_mount(const std::string& mounts_text, const std::string& controller);

// The cgroup id of a directory in the cgroup2 file system.
Result<uint64_t> cgroup_id(const std::string& dir);

}  // namespace weft::load
