// --kill-after-writes K --kill-pid-file FILE [--kill-writes-matching REGEX]: a crash at a
// chosen point, for crash tests. After the K-th successful write (not GET) whose path
// matches, the process whose pid FILE holds gets SIGKILL before that write is answered:
// the write took effect, its client never hears so. Fires once.
#pragma once

#include <mutex>
#include <regex>
#include <string>

namespace weft::kube_lite {

class CrashTrigger {
 public:
  CrashTrigger() = default;
  CrashTrigger(int after_writes, std::string pid_file, const std::string& path_regex);
  bool armed() const { return after_ > 0; }
  // Called once a request has been served (and logged), before it is answered.
  void served(const std::string& method, const std::string& path, int status);

 private:
  int after_ = 0;
  std::string pid_file_;
  std::regex paths_;
  std::mutex mu_;
  int seen_ = 0;
  bool fired_ = false;
};

}  // namespace weft::kube_lite
