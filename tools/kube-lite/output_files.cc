#include "tools/kube-lite/output_files.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace weft::kube_lite {

Status write_file_atomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return make_error(path + ": cannot write: " + std::strerror(errno));
  bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return make_error(path + ": cannot write: " + why);
  }
  return {};
}

std::string kubeconfig_for(const std::string& server_url) {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: kube-lite\n"
         "  cluster:\n"
         "    server: " + server_url + "\n"
         "users:\n"
         "- name: kube-lite-admin\n"
         "  user: {}\n"
         "contexts:\n"
         "- name: kube-lite\n"
         "  context:\n"
         "    cluster: kube-lite\n"
         "    user: kube-lite-admin\n"
         "    namespace: default\n"
         "current-context: kube-lite\n";
}

Status write_dump(const std::string& path, Registry& registry) {
  return write_file_atomically(path, registry.dump().dump(1) + "\n");
}

}  // namespace weft::kube_lite
