#include "collectors/load/cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "collectors/load/procfs_parse.h"

namespace weft::load {

Result<std::string> parse_cgroup2_mount(const std::string& mounts_text) {
  std::istringstream in(mounts_text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string dev, dir, type;
    if (f >> dev >> dir >> type && type == "cgroup2") return dir;
  }
  return make_error("no cgroup2 file system mounted (see /proc/self/mounts)");
}

Result<std::string> parse_cgroup1_mount(const std::string& mounts_text, const std::string& controller) {
  std::istringstream in(mounts_text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string dev, dir, type, options;
    if (!(f >> dev >> dir >> type >> options) || type != "cgroup") continue;
    std::istringstream opts(options);
    std::string o;
    while (std::getline(opts, o, ',')) {
      if (o == controller) return dir;
    }
  }
  return make_error("no cgroup v1 hierarchy with the " + controller + " controller (see /proc/self/mounts)");
}

Result<std::string> cgroup2_mount(const TextFiles& files) {
  auto mounts = files.read("/proc/self/mounts");
  if (!mounts) return mounts.error();
  return parse_cgroup2_mount(*mounts);
}

Result<uint64_t> cgroup_cpu_usage_ns(const TextFiles& files, const std::string& dir) {
  auto text = files.read(dir + "/cpu.stat");
  if (!text) return text.error();
  auto ns = parse_cgroup_usage_ns(*text);
  if (!ns) return wrap(ns.error(), dir + "/cpu.stat");
  return ns;
}

Result<std::string> resolve_cgroup_dir(const TextFiles& files, const std::string& mount, const std::string& path) {
  if (path.empty()) return make_error("--cgroup: empty path");
  if (path.find("..") != std::string::npos) return make_error("--cgroup " + path + ": '..' is not allowed");
  std::string dir;
  if (path.rfind(mount + "/", 0) == 0 || path == mount) {
    dir = path;
  } else {
    dir = mount + (path[0] == '/' ? "" : "/") + path;
  }
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (!files.exists(dir)) return make_error("--cgroup " + path + ": " + dir + " does not exist (cgroup2 at " + mount + ")");
  if (!files.exists(dir + "/cpu.stat")) return make_error("--cgroup " + path + ": " + dir + " is not a cgroup2 group (no cpu.stat)");
  return dir;
}

Result<uint64_t> cgroup_id(const std::string& dir) {
  // kernfs file handles carry the 64-bit node id; st_ino is the same number on 64-bit
  // kernels and the fallback where handles are not supported.
  struct {
    struct file_handle fh;
    unsigned char bytes[64];
  } h;
  h.fh.handle_bytes = sizeof h.bytes;
  int mount_id = 0;
  if (::name_to_handle_at(AT_FDCWD, dir.c_str(), &h.fh, &mount_id, 0) == 0 && h.fh.handle_bytes == 8) {
    uint64_t id = 0;
    std::memcpy(&id, h.fh.f_handle, sizeof id);
    return id;
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0) return make_error("cgroup " + dir + ": " + std::strerror(errno), errno);
  return static_cast<uint64_t>(st.st_ino);
}

}  // namespace weft::load
