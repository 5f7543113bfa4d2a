#include "tools/kube-lite/crash_trigger.h"

#include <signal.h>

#include <cstdio>
#include <fstream>

namespace weft::kube_lite {

CrashTrigger::CrashTrigger(int after_writes, std::string pid_file, const std::string& path_regex)
    : after_(after_writes), pid_file_(std::move(pid_file)), paths_(path_regex.empty() ? ".*" : path_regex) {}

void CrashTrigger::served(const std::string& method, const std::string& path, int status) {
  if (!armed() || method == "GET" || status / 100 != 2 || !std::regex_match(path, paths_)) return;
  std::lock_guard lock(mu_);
  if (fired_ || ++seen_ < after_) return;
  fired_ = true;
  long pid = 0;
  std::ifstream in(pid_file_);
  if (!(in >> pid) || pid <= 1) {
    std::fprintf(stderr, "kube-lite: --kill-pid-file %s holds no pid; nothing killed\n", pid_file_.c_str());
    return;
  }
  ::kill(static_cast<pid_t>(pid), SIGKILL);
  std::fprintf(stderr, "kube-lite: write %d (%s %s) served; sent SIGKILL to %ld\n", seen_, method.c_str(),
               path.c_str(), pid);
}

}  // namespace weft::kube_lite
