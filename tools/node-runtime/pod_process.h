// One pod's process: a burner started by re-executing this binary (`burn`) so that it
// joins the pod's cgroup before burning, and dies with the runtime (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "common/result.h"

namespace weft::noderuntime {

class PodProcess {
 public:
  // self_exe: this binary; cgroup: the pod's group (created by the caller).
  static Result<PodProcess> start(const std::string& self_exe, const std::string& cgroup, double cores);

  pid_t pid() const { return pid_; }
  // The exit status when the process has ended (reaped), without waiting.
  std::optional<int> poll();
  // SIGTERM, a short grace, then SIGKILL; reaps it.
  void stop();

 private:
  explicit PodProcess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
  bool reaped_ = false;
};

// Creates a group directory (ok when it exists) / removes it, moving any process still
// in it to the parent group first so rmdir cannot fail on a busy group.
Status make_group(const std::string& dir);
Status remove_group(const std::string& dir);

}  // namespace weft::noderuntime
