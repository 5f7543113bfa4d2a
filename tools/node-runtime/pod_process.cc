#include "tools/node-runtime/pod_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/signals.h"

namespace weft::noderuntime {

Result<PodProcess> PodProcess::start(const std::string& self_exe, const std::string& cgroup, double cores) {
  // Everything the child needs is built before fork: after fork only exec-safe calls.
  std::vector<std::string> args = {self_exe, "burn", "--cores", fmt::format("{:.6f}", cores), "--cgroup", cgroup};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno), errno);
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    StopSignal::reset_in_child();
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return PodProcess(pid);
}

std::optional<int> PodProcess::poll() {
  if (reaped_) return 0;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) return std::nullopt;
  reaped_ = true;
  if (r < 0) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void PodProcess::stop() {
  if (reaped_ || pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  while (std::chrono::steady_clock::now() < deadline) {
    if (poll()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  reaped_ = true;
}

Status make_group(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return make_error("mkdir " + dir + ": " + std::strerror(errno), errno);
  return {};
}

Status remove_group(const std::string& dir) {
  const std::string parent = dir.substr(0, dir.rfind('/'));
  std::ifstream procs(dir + "/cgroup.procs");
  std::string pid;
  while (std::getline(procs, pid)) {
    std::ofstream(parent + "/cgroup.procs") << pid << std::flush;
  }
  if (::rmdir(dir.c_str()) != 0 && errno != ENOENT)
    return make_error("rmdir " + dir + ": " + std::strerror(errno), errno);
  return {};
}

}  // namespace weft::noderuntime
