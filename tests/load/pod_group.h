// Real pods' cgroups for root tests: a tree of cgroup v2 groups laid out as kubelet or
// the demo runtime does, and in a pod's group one child process that holds some
// memory touched and spins or sleeps. On a hybrid host, where the memory controller is
// on cgroup v1, the child also joins the same path in the v1 memory hierarchy.
// Everything made is killed and removed at scope end.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "collectors/load/cgroup.h"
#include "collectors/load/text_files.h"

namespace weft::load::testing {

struct CgroupMounts {
  std::string v2;         // "" when no cgroup2 is mounted
  std::string memory_v1;  // "" when the memory controller is not on a v1 hierarchy
};

inline CgroupMounts cgroup_mounts() {
  CgroupMounts m;
  HostFiles files;
  if (auto text = files.read("/proc/self/mounts")) {
    if (auto v2 = parse_cgroup2_mount(*text)) m.v2 = *v2;
    if (auto v1 = parse_cgroup1_mount(*text, "memory")) m.memory_v1 = *v1;
  }
  return m;
}

// Directories made under one or two hierarchies, removed deepest first. The memory
// controller is enabled down the v2 tree where the v2 root offers it; otherwise the
// tree is made in the v1 memory hierarchy too.
class CgroupTree {
 public:
  CgroupTree(CgroupMounts mounts, std::string top) : mounts_(std::move(mounts)), top_(std::move(top)) {
    std::ifstream controllers(mounts_.v2 + "/cgroup.controllers");
    std::string c;
    while (controllers >> c) v2_memory_ = v2_memory_ || c == "memory";
  }
  ~CgroupTree() {
    for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
      for (int i = 0; i < 50 && rmdir(it->c_str()) != 0 && errno == EBUSY; i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  CgroupTree(const CgroupTree&) = delete;
  CgroupTree& operator=(const CgroupTree&) = delete;

  std::string v2(const std::string& relative = "") const { return mounts_.v2 + "/" + top_ + slash(relative); }
  // The same group in the v1 memory hierarchy; "" when memory is on v2 or nowhere.
  std::string memory_v1(const std::string& relative = "") const {
    if (v2_memory_ || mounts_.memory_v1.empty()) return "";
    return mounts_.memory_v1 + "/" + top_ + slash(relative);
  }
  bool has_memory() const { return v2_memory_ || !mounts_.memory_v1.empty(); }

  // mkdir -p of top/relative in each hierarchy; false (and error()) on failure.
  bool make(const std::string& relative) {
    const std::string rest = top_ + slash(relative);
    for (const std::string& base : {mounts_.v2, memory_v1().empty() ? std::string() : mounts_.memory_v1}) {
      if (base.empty()) continue;
      std::string path = base;
      size_t from = 0;
      while (from <= rest.size()) {
        size_t to = rest.find('/', from);
        if (to == std::string::npos) to = rest.size();
        if (v2_memory_ && base == mounts_.v2) std::ofstream(path + "/cgroup.subtree_control") << "+memory" << std::flush;
        path += "/" + rest.substr(from, to - from);
        if (mkdir(path.c_str(), 0755) == 0) {
          made_.push_back(path);
        } else if (errno != EEXIST) {
          error_ = path + ": " + std::strerror(errno);
          return false;
        }
        from = to + 1;
      }
    }
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  static std::string slash(const std::string& r) { return r.empty() ? "" : "/" + r; }
  CgroupMounts mounts_;
  std::string top_;
  std::vector<std::string> made_;
  std::string error_;
  bool v2_memory_ = false;
};

// One process in a pod's group(s): touches `mib` MiB, then spins (busy) or sleeps.
class PodProcess {
 public:
  PodProcess(const std::string& v2_dir, const std::string& memory_v1_dir, bool busy, size_t mib) {
    // The child of a threaded test may only make system calls: everything it needs is
    // ready before fork (malloc could wait forever on a lock some thread held).
    const std::string procs[2] = {v2_dir + "/cgroup.procs", memory_v1_dir.empty() ? "" : memory_v1_dir + "/cgroup.procs"};
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0) {
      error_ = std::string("pipe: ") + std::strerror(errno);
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      for (const auto& path : procs) {
        if (path.empty()) continue;
        int fd = open(path.c_str(), O_WRONLY);
        if (fd < 0 || write(fd, "0\n", 2) != 2) _exit(3);
        close(fd);
      }
      if (mib) {
        void* p = mmap(nullptr, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) _exit(4);
        for (size_t i = 0; i < (mib << 20); i += 4096) static_cast<volatile char*>(p)[i] = 1;
      }
      if (write(ready[1], "r", 1) != 1) _exit(5);
      volatile unsigned long spin = 0;
      for (;;) {
        if (busy) spin = spin + 1;
        else pause();
      }
    }
    close(ready[1]);
    char c = 0;
    // A child that failed closes its end: read() returns 0 rather than waiting.
    if (pid_ < 0 || read(ready[0], &c, 1) != 1) error_ = "the pod's process did not start in " + v2_dir;
    close(ready[0]);
  }
  ~PodProcess() { stop(); }
  PodProcess(const PodProcess&) = delete;
  PodProcess& operator=(const PodProcess&) = delete;
  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }
  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  std::string error_;
};

}  // namespace weft::load::testing
