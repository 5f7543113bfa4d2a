// cgroup v2: where it is mounted, a group's directory, and its id (the kernfs node id
// that bpf_get_current_cgroup_id() and task->cgroups->dfl_cgrp->kn->id report).
#pragma once

#include <cstdint>
#include <string>

#include "collectors/load/text_files.h"
#include "common/result.h"

namespace weft::load {

// Mount point of the cgroup2 file system in /proc/self/mounts text ("/sys/fs/cgroup"
// on a pure v2 host, "/sys/fs/cgroup/unified" on a hybrid one).
Result<std::string> parse_cgroup2_mount(const std::string& mounts_text);

// PATH as given to --cgroup: a directory under the mount ("/sys/fs/cgroup/unified/x")
// or a path inside the hierarchy ("/kubepods.slice/x", "x"). Returns the directory,
// checked to exist and to hold cpu.stat.
Result<std::string> resolve_cgroup_dir(const TextFiles& files, const std::string& mount, const std::string& path);

// The cgroup id of a directory in the cgroup2 file system.
Result<uint64_t> cgroup_id(const std::string& dir);

}  // namespace weft::load
