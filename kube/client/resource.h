// Which REST collection an object lives in, and the URL paths and query strings the
// API server expects for it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace weft::kube {

struct ResourceRef {
  std::string group;      // "" for the core group
  std::string version;    // "v1"
  std::string resource;   // plural: "pods"
  bool namespaced = true;

  // /api/v1/namespaces/NS/pods, /api/v1/nodes, /apis/GROUP/VERSION/...; ns "" on a
  // namespaced resource lists across all namespaces.
  std::string collection_path(const std::string& ns) const;
  std::string object_path(const std::string& ns, const std::string& name,
                          const std::string& subresource = "") const;
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

namespace resources {
ResourceRef nodes();
ResourceRef pods();
ResourceRef namespaces();
ResourceRef events();           // core/v1 Event
ResourceRef configmaps();
ResourceRef leases();           // coordination.k8s.io/v1
ResourceRef poddisruptionbudgets();
ResourceRef podgroups();        // scheduling.volcano.sh/v1beta1
ResourceRef native_podgroups();           // scheduling.k8s.io/v1beta1 PodGroup (Kubernetes' own gang API)
ResourceRef composite_podgroups();        // scheduling.k8s.io/v1alpha3
ResourceRef workloads();                  // scheduling.k8s.io/v1beta1
ResourceRef queues();           // scheduling.volcano.sh/v1beta1, cluster-scoped
ResourceRef hypernodes();       // topology.volcano.sh/v1alpha1, cluster-scoped
ResourceRef persistentvolumes();        // cluster-scoped
ResourceRef persistentvolumeclaims();
ResourceRef storageclasses();           // storage.k8s.io/v1, cluster-scoped
ResourceRef csinodes();                 // storage.k8s.io/v1, cluster-scoped
}  // namespace resources

// RFC 3986 percent-encoding of a query component: everything but unreserved characters.
std::string url_encode(const std::string& text);
// Decodes %XX and '+' (as a space); malformed escapes are kept as they are.
std::string url_decode(const std::string& text);

struct ListOptions {
  std::string label_selector;   // "app=web,tier in (a,b)"
  std::string field_selector;   // "spec.nodeName=n1"
  int64_t limit = 0;            // page size; 0 = server default (no paging)
  std::string continue_token;
  std::string resource_version;
  int timeout_seconds = 0;      // for watches: server-side end of the stream
  // Not sent: what the client keeps of each listed item or watched object, decoded
  // straight to that (a kube::project() tree; null keeps them whole).
  nlohmann::json keep;
  // Not sent: watch events carry each object as text (WatchEvent::raw), not decoded.
  bool raw = false;
};

// "?labelSelector=...&limit=..." (empty when there is nothing to add).
std::string list_query(const ListOptions& options);
std::string watch_query(const ListOptions& options, bool allow_bookmarks);
std::string build_query(const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace weft::kube
