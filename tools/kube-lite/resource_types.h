// The REST collections kube-lite serves: group, version, plural, kind, scope,
// subresources. Discovery documents and URL routing are derived from this table.
#pragma once

#include <string>
#include <vector>

namespace weft::kube_lite {

struct ResourceType {
  int id = 0;                      // index in the table, for the store
  std::string group;               // "" for core
  std::string version;
  std::string plural;              // "pods"
  std::string singular;            // "pod"
  std::string kind;                // "Pod"
  bool namespaced = true;
  bool has_status = false;         // status subresource: main writes keep status, .../status keeps the rest
  bool custom = false;             // a CRD: no strategic merge patch (as the real API)
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  // Another version of the same resource whose stored objects this one serves (the real
  // server converts between the versions it serves); -1: objects of its own.
  int storage = -1;
  bool read_only = false;          // metrics.k8s.io: get and list only, as metrics-server serves them

  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
  std::string group_resource() const { return group.empty() ? plural : plural + "." + group; }
};

class ResourceTypes {
 public:
  ResourceTypes();
  const std::vector<ResourceType>& all() const { return types_; }
  const ResourceType* find(const std::string& group, const std::string& version, const std::string& plural) const;
  const ResourceType* find_kind(const std::string& api_version, const std::string& kind) const;
  // The entry whose objects `t` serves: itself, or the version it is an alias of.
  const ResourceType& storage_of(const ResourceType& t) const { return t.storage < 0 ? t : types_[t.storage]; }
  const ResourceType& namespaces() const { return *find("", "v1", "namespaces"); }
  const ResourceType& pods() const { return *find("", "v1", "pods"); }
  const ResourceType& nodes() const { return *find("", "v1", "nodes"); }
  const ResourceType& pdbs() const { return *find("policy", "v1", "poddisruptionbudgets"); }
  const ResourceType& priority_classes() const { return *find("scheduling.k8s.io", "v1", "priorityclasses"); }
  // Distinct groups in table order with their versions.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups() const;

 private:
  std::vector<ResourceType> types_;
};

}  // namespace weft::kube_lite
