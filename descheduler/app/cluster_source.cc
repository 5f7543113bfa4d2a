#include "descheduler/app/cluster_source.h"

#include "kube/objects.h"
#include "kube/scenario.h"

namespace weft::descheduler {

Result<Cluster> cluster_from_file(const std::string& path) {
  auto objects = kube::load_objects_file(path);
  if (!objects) return objects.error();
  ClusterBuilder builder;
  for (const auto& o : *objects)
    if (auto s = builder.add(o.object, o.where()); !s) return s.error();
  return builder.finish();
}

Result<Cluster> cluster_from_api(kube::Client& client, std::vector<std::string>& warnings) {
  ClusterBuilder builder;
  Status failed;
  auto add = [&](const char* kind, const kube::ResourceRef& ref) {
    return [&builder, &failed, kind, ref](nlohmann::json&& item) {
      if (!failed) return;
      if (!item.contains("kind")) item["kind"] = kind;
      if (!item.contains("apiVersion")) item["apiVersion"] = ref.api_version();
      if (auto s = builder.add(item, ref.collection_path("") + " item " + kube::key_of(item)); !s) failed = s;
    };
  };
  struct Kind {
    const char* kind;
    kube::ResourceRef ref;
    bool optional;
    kube::ListOptions options;
  };
  kube::ListOptions live_pods;
  live_pods.field_selector = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed";
  const Kind kinds[] = {
      {"Node", kube::resources::nodes(), false, {}},
      {"Pod", kube::resources::pods(), false, live_pods},
      {"PodGroup", kube::resources::podgroups(), true, {}},
      {"PriorityClass", kube::ResourceRef{"scheduling.k8s.io", "v1", "priorityclasses", false}, true, {}},
  };
  for (const Kind& k : kinds) {
    auto r = client.list_each(k.ref, "", k.options, add(k.kind, k.ref));
    if (!r) {
      if (k.optional && (r.error().code == 404 || r.error().code == 403)) {
        warnings.push_back(std::string(k.kind) + "s not listed (" + r.message() + ")");
        continue;
      }
      return r.error();
    }
    if (!failed) return failed.error();
  }
  return builder.finish();
}

}  // namespace weft::descheduler
