// as-container: runs a program from an unpacked image root the way a container runtime
// runs the weft-agent DaemonSet's container, so tests can check the manifest's privilege
// claims without a runtime:
//   - a private mount namespace; the image root bind-mounted read-only
//     (readOnlyRootFilesystem: true); fresh proc and read-only sysfs; /dev a tmpfs with
//     the usual character devices; /sys/fs/cgroup bind-mounted read-only (the hostPath);
//   - chroot into it, user --uid (runAsUser), bounding set = exactly --caps (drop ALL, add),
//     no inheritable or ambient capabilities, no_new_privs (allowPrivilegeEscalation: false).
// Test scaffolding only: --tmp FILE copies FILE into a tmpfs at /tmp (umad2sim, which
// stands in for the HCA, needs its library there and a writable working directory).
//
//   as-container --root DIR --caps bpf,perfmon,syslog --uid 0 [--wd /tmp] [--tmp FILE]...
//                -- PROGRAM ARGS...
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "as-container: %s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(125);
}

void must(int rc, const std::string& what) {
  if (rc != 0) die(what);
}

const std::map<std::string, int> kCaps = {
    {"chown", 0},     {"dac_override", 1}, {"fowner", 3},        {"kill", 5},        {"setgid", 6},
    {"setuid", 7},    {"net_bind_service", 10}, {"net_admin", 12}, {"net_raw", 13},  {"ipc_lock", 14},
    {"sys_chroot", 18}, {"sys_ptrace", 19}, {"sys_admin", 21},   {"sys_resource", 24}, {"syslog", 34},
    {"perfmon", 38},  {"bpf", 39},
};

}  // namespace

int main(int argc, char** argv) {
  std::string root, wd = "/", uid_text = "0";
  std::set<int> keep;
  std::vector<std::string> tmp_files;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "as-container: %s needs a value\n", a.c_str());
      return 2;
    }
    std::string v = argv[++i];
    if (a == "--root") root = v;
    else if (a == "--wd") wd = v;
    else if (a == "--uid") uid_text = v;
    else if (a == "--tmp") tmp_files.push_back(v);
    else if (a == "--caps") {
      std::stringstream list(v);
      for (std::string c; std::getline(list, c, ',');) {
        if (c.empty()) continue;
        auto it = kCaps.find(c);
        if (it == kCaps.end()) {
          std::fprintf(stderr, "as-container: unknown capability '%s'\n", c.c_str());
          return 2;
        }
        keep.insert(it->second);
      }
    } else {
      std::fprintf(stderr, "as-container: unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  if (root.empty() || i >= argc) {
    std::fprintf(stderr, "usage: as-container --root DIR --caps LIST --uid N [--wd D] [--tmp F]... -- PROGRAM ARGS\n");
    return 2;
  }
  const uid_t uid = static_cast<uid_t>(std::stoul(uid_text));

  must(unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)");
  must(mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr), "make / private");
  must(mount(root.c_str(), root.c_str(), nullptr, MS_BIND, nullptr), "bind " + root);
  must(mount(nullptr, root.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr), "remount read-only " + root);
  const std::string proc = root + "/proc", sys = root + "/sys", dev = root + "/dev", tmp = root + "/tmp";
  must(mount("proc", proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr), "mount " + proc);
  must(mount("sysfs", sys.c_str(), "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr), "mount " + sys);
  const std::string cgroup = sys + "/fs/cgroup";
  must(mount("/sys/fs/cgroup", cgroup.c_str(), nullptr, MS_BIND | MS_REC, nullptr), "bind " + cgroup);
  must(mount(nullptr, cgroup.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr), "read-only " + cgroup);
  must(mount("tmpfs", dev.c_str(), "tmpfs", MS_NOSUID, "mode=755,size=64k"), "mount " + dev);
  for (auto [name, minor] : std::vector<std::pair<const char*, int>>{{"null", 3}, {"zero", 5}, {"full", 7},
                                                                     {"random", 8}, {"urandom", 9}}) {
    must(mknod((dev + "/" + name).c_str(), S_IFCHR | 0666, makedev(1, minor)), std::string("mknod ") + name);
  }
  must(mount("tmpfs", tmp.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m"), "mount " + tmp);
  for (const auto& f : tmp_files) {
    std::error_code ec;
    std::filesystem::copy_file(f, tmp + "/" + std::filesystem::path(f).filename().string(), ec);
    if (ec) {
      std::fprintf(stderr, "as-container: copy %s: %s\n", f.c_str(), ec.message().c_str());
      return 125;
    }
  }

  must(chroot(root.c_str()), "chroot " + root);
  must(chdir(wd.c_str()), "chdir " + wd);
  for (int cap = 0; cap <= 63; ++cap) {
    if (keep.count(cap)) continue;
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) die("drop capability " + std::to_string(cap));
  }
  must(prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities");
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  must(static_cast<int>(syscall(SYS_capget, &header, data)), "capget");
  data[0].inheritable = data[1].inheritable = 0;
  must(static_cast<int>(syscall(SYS_capset, &header, data)), "capset");
  if (uid != 0) {
    must(setgroups(0, nullptr), "setgroups");
    must(setgid(uid), "setgid");
    must(setuid(uid), "setuid");
  }
  must(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs");
  execv(argv[i], argv + i);
  die(std::string("exec ") + argv[i]);
}
