#include "collectors/load/pods/pod_cgroups.h"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace weft::load {

namespace {

// metadata.uid is a UUID; static pods' are a hash in hex. Either way hex and '-'.
bool plausible_uid(std::string_view uid) {
  if (uid.empty() || uid.size() > 64 || uid.front() == '-') return false;
  return std::all_of(uid.begin(), uid.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-';
  });
}

std::optional<PodCgroup> with_uid(std::string uid) {
  if (!plausible_uid(uid)) return std::nullopt;
  PodCgroup p;
  p.uid = std::move(uid);
  return p;
}

std::optional<uint64_t> stat_field(const std::string& text, std::string_view key) {
  std::istringstream in(text);
  std::string k;
  uint64_t v = 0;
  while (in >> k >> v) {
    if (k == key) return v;
  }
  return std::nullopt;
}

Result<uint64_t> read_u64(const TextFiles& files, const std::string& path) {
  auto text = files.read(path);
  if (!text) return text.error();
  uint64_t v = 0;
  const char* begin = text->data();
  const char* end = begin + text->size();
  while (end > begin && (end[-1] == '\n' || end[-1] == ' ')) --end;
  auto [p, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || p != end) return make_error(path + ": not a number: '" + std::string(begin, end) + "'");
  return v;
}

Result<uint64_t> working_set(const TextFiles& files, const std::string& dir, const std::string& usage_file,
                             std::string_view inactive_key) {
  auto usage = read_u64(files, dir + "/" + usage_file);
  if (!usage) return usage.error();
  auto stat = files.read(dir + "/memory.stat");
  if (!stat) return stat.error();
  auto inactive = stat_field(*stat, inactive_key);
  if (!inactive) return make_error(dir + "/memory.stat: no " + std::string(inactive_key) + " line");
  return *usage > *inactive ? *usage - *inactive : 0;
}

}  // namespace

std::optional<PodCgroup> parse_pod_cgroup_name(std::string_view name) {
  constexpr std::string_view kSlice = ".slice";
  if (name.starts_with("kubepods-") && name.ends_with(kSlice)) {
    std::string_view rest = name.substr(0, name.size() - kSlice.size());
    auto at = rest.rfind("-pod");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view qos = rest.substr(9, at < 9 ? 0 : at - 9 + 1);
    if (!(qos.empty() || qos == "burstable-" || qos == "besteffort-")) return std::nullopt;
    std::string uid(rest.substr(at + 4));
    if (uid.find('-') != std::string::npos) return std::nullopt;  // systemd escapes '-' as '_'
    std::replace(uid.begin(), uid.end(), '_', '-');
    return with_uid(std::move(uid));
  }
  if (name.starts_with("pod-")) {
    std::string_view rest = name.substr(4);
    auto dash = rest.find('-');
    if (dash == 0 || dash == std::string_view::npos || dash + 1 == rest.size()) return std::nullopt;
    PodCgroup p;
    p.runtime_name = std::string(rest);
    return p;
  }
  if (name.starts_with("pod")) return with_uid(std::string(name.substr(3)));
  return std::nullopt;
}

std::vector<PodCgroup> find_pod_cgroups(const TextFiles& files, const std::vector<std::string>& roots) {
  std::vector<PodCgroup> out;
  struct Level {
    std::string dir;
    int depth;
  };
  for (const auto& root : roots) {
    std::vector<Level> todo{{root, 0}};
    while (!todo.empty()) {
      Level at = std::move(todo.back());
      todo.pop_back();
      auto subdirs = files.subdirs(at.dir);
      if (!subdirs) continue;  // gone meanwhile, or the root is not there
      for (const auto& name : *subdirs) {
        std::string dir = at.dir + "/" + name;
        if (auto pod = parse_pod_cgroup_name(name)) {
          pod->dir = std::move(dir);
          out.push_back(std::move(*pod));
        } else if (at.depth < 2) {
          todo.push_back({std::move(dir), at.depth + 1});
        }
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const PodCgroup& a, const PodCgroup& b) { return a.dir < b.dir; });
  out.erase(std::unique(out.begin(), out.end(), [](const PodCgroup& a, const PodCgroup& b) { return a.dir == b.dir; }),
            out.end());
  return out;
}

std::vector<std::string> kubelet_pod_roots(const std::string& cgroup2_mount) {
  return {cgroup2_mount + "/kubepods.slice", cgroup2_mount + "/kubepods"};
}

Result<uint64_t> read_memory_working_set(const TextFiles& files, const std::string& v2_dir,
                                         const std::string& v1_dir) {
  if (files.exists(v2_dir + "/memory.current")) return working_set(files, v2_dir, "memory.current", "inactive_file");
  if (!v1_dir.empty() && files.exists(v1_dir + "/memory.usage_in_bytes")) {
    return working_set(files, v1_dir, "memory.usage_in_bytes", "total_inactive_file");
  }
  return make_error(v2_dir + ": no memory.current (the memory controller is not enabled for this group)" +
                    (v1_dir.empty() ? std::string() : ", nor " + v1_dir + "/memory.usage_in_bytes"));
}

}  // namespace weft::load
