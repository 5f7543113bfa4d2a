#include "kube/client/resource.h"

#include <cctype>

namespace weft::kube {

std::string ResourceRef::collection_path(const std::string& ns) const {
  std::string p = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) p += "/namespaces/" + url_encode(ns);
  return p + "/" + resource;
}

std::string ResourceRef::object_path(const std::string& ns, const std::string& name,
                                     const std::string& subresource) const {
  std::string p = collection_path(namespaced ? ns : "") + "/" + url_encode(name);
  if (!subresource.empty()) p += "/" + subresource;
  return p;
}

namespace resources {
ResourceRef nodes() { return {"", "v1", "nodes", false}; }
ResourceRef pods() { return {"", "v1", "pods", true}; }
ResourceRef namespaces() { return {"", "v1", "namespaces", false}; }
ResourceRef events() { return {"", "v1", "events", true}; }
ResourceRef configmaps() { return {"", "v1", "configmaps", true}; }
ResourceRef leases() { return {"coordination.k8s.io", "v1", "leases", true}; }
ResourceRef poddisruptionbudgets() { return {"policy", "v1", "poddisruptionbudgets", true}; }
ResourceRef podgroups() { return {"scheduling.volcano.sh", "v1beta1", "podgroups", true}; }
ResourceRef native_podgroups() { return {"scheduling.k8s.io", "v1beta1", "podgroups", true}; }
ResourceRef composite_podgroups() { return {"scheduling.k8s.io", "v1alpha3", "compositepodgroups", true}; }
ResourceRef workloads() { return {"scheduling.k8s.io", "v1beta1", "workloads", true}; }
ResourceRef queues() { return {"scheduling.volcano.sh", "v1beta1", "queues", false}; }
ResourceRef hypernodes() { return {"topology.volcano.sh", "v1alpha1", "hypernodes", false}; }
ResourceRef persistentvolumes() { return {"", "v1", "persistentvolumes", false}; }
ResourceRef persistentvolumeclaims() { return {"", "v1", "persistentvolumeclaims", true}; }
ResourceRef storageclasses() { return {"storage.k8s.io", "v1", "storageclasses", false}; }
ResourceRef csinodes() { return {"storage.k8s.io", "v1", "csinodes", false}; }
}  // namespace resources

std::string url_encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string url_decode(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string build_query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string q;
  for (const auto& [k, v] : params) {
    q += q.empty() ? '?' : '&';
    q += url_encode(k) + "=" + url_encode(v);
  }
  return q;
}

namespace {
std::vector<std::pair<std::string, std::string>> common_params(const ListOptions& o) {
  std::vector<std::pair<std::string, std::string>> p;
  if (!o.label_selector.empty()) p.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) p.emplace_back("fieldSelector", o.field_selector);
  if (!o.resource_version.empty()) p.emplace_back("resourceVersion", o.resource_version);
  return p;
}
}  // namespace

std::string list_query(const ListOptions& o) {
  auto p = common_params(o);
  if (o.limit > 0) p.emplace_back("limit", std::to_string(o.limit));
  if (!o.continue_token.empty()) p.emplace_back("continue", o.continue_token);
  return build_query(p);
}

std::string watch_query(const ListOptions& o, bool allow_bookmarks) {
  auto p = common_params(o);
  p.insert(p.begin(), {"watch", "1"});
  if (allow_bookmarks) p.emplace_back("allowWatchBookmarks", "true");
  if (o.timeout_seconds > 0) p.emplace_back("timeoutSeconds", std::to_string(o.timeout_seconds));
  return build_query(p);
}

}  // namespace weft::kube
