#include "scheduler/app/run_cache.h"

#include <algorithm>
#include <thread>

#include <spdlog/spdlog.h>

#include "kube/objects.h"

namespace weft::scheduler {

using nlohmann::json;
namespace res = kube::resources;

std::vector<WatchedKind> watched_kinds() {
  return {
      {res::nodes(), "v1", "Node", true},
      {res::pods(), "v1", "Pod", true},
      {res::queues(), "scheduling.volcano.sh/v1beta1", "Queue", false},
      {res::podgroups(), "scheduling.volcano.sh/v1beta1", "PodGroup", false},
      {res::hypernodes(), "topology.volcano.sh/v1alpha1", "HyperNode", false},
      {kube::ResourceRef{"scheduling.k8s.io", "v1", "priorityclasses", false}, "scheduling.k8s.io/v1",
       "PriorityClass", false},
  };
}

ClusterCache::ClusterCache(kube::Client& client) : client_(client) {}

ClusterCache::~ClusterCache() { stop(); }

Status ClusterCache::start() {
  for (const auto& kind : watched_kinds()) {
    if (!kind.required) {
      kube::ListOptions probe;
      probe.limit = 1;
      auto page = client_.list_page(kind.ref, "", probe);
      if (!page && page.error().code == 404) {
        spdlog::warn("{} is not served by the API ({}); scheduling without it", kind.kind, page.message());
        absent_.push_back(kind.kind);
        continue;
      }
      // Other errors: the informer retries with backoff like any list.
    }
    kube::InformerOptions options;
    options.transform = [api_version = kind.api_version, kind_name = kind.kind](json& object) {
      kube::strip_managed_fields(object);
      object["apiVersion"] = api_version;
      object["kind"] = kind_name;
    };
    auto informer = std::make_unique<kube::Informer>(client_, kind.ref, "", options);
    informer->start();
    informers_.emplace_back(kind, std::move(informer));
  }
  return {};
}

void ClusterCache::stop() {
  for (auto& [kind, informer] : informers_) informer->stop();
}

bool ClusterCache::synced() const {
  return std::all_of(informers_.begin(), informers_.end(), [](const auto& p) { return p.second->has_synced(); });
}

bool ClusterCache::wait_for_sync(std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (auto& [kind, informer] : informers_) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0 || !informer->wait_for_sync(left)) return false;
  }
  return true;
}

namespace {

// A string field of metadata or spec, "" when absent.
std::string field_of(const json& object, const char* section, const char* key) {
  auto m = object.find(section);
  return m != object.end() && m->is_object() ? m->value(key, "") : "";
}
std::string uid_of(const json& o) { return field_of(o, "metadata", "uid"); }
std::string node_of(const json& pod) { return field_of(pod, "spec", "nodeName"); }
std::string creation_of(const json& o) { return field_of(o, "metadata", "creationTimestamp"); }
std::string version_of(const json& o) { return field_of(o, "metadata", "resourceVersion"); }

}  // namespace

void ClusterCache::overlay_pods(std::vector<json>& pods) {
  std::lock_guard lock(mu_);
  std::map<std::string, json*> by_key;
  for (auto& pod : pods) by_key[kube::key_of(pod)] = &pod;
  for (auto it = assumed_.begin(); it != assumed_.end();) {
    auto pod = by_key.find(it->first);
    bool gone = pod == by_key.end() || (!it->second.uid.empty() && uid_of(*pod->second) != it->second.uid);
    if (gone || !node_of(*pod->second).empty()) {
      it = assumed_.erase(it);   // deleted, or the watch has shown the binding
      continue;
    }
    (*pod->second)["spec"]["nodeName"] = it->second.node;
    ++it;
  }
}

void ClusterCache::overlay_podgroups(std::vector<json>& podgroups) {
  std::lock_guard lock(mu_);
  std::map<std::string, json*> by_key;
  for (auto& pg : podgroups) by_key[kube::key_of(pg)] = &pg;
  for (auto it = statuses_.begin(); it != statuses_.end();) {
    auto pg = by_key.find(it->first);
    if (pg == by_key.end() || version_of(*pg->second) != it->second.cached_version) {
      it = statuses_.erase(it);   // deleted, or the cache has moved on (our write or a later one)
      continue;
    }
    (*pg->second)["status"] = it->second.status;
    ++it;
  }
}

std::vector<json> ClusterCache::snapshot() {
  std::vector<json> out;
  for (auto& [kind, informer] : informers_) {
    auto items = informer->items();
    // A stable order (oldest first, then by key), so equal inputs give equal cycles.
    std::vector<json> objects;
    objects.reserve(items.size());
    for (const auto& item : items) objects.push_back(*item);
    std::sort(objects.begin(), objects.end(), [](const json& a, const json& b) {
      auto ca = creation_of(a), cb = creation_of(b);
      return ca != cb ? ca < cb : kube::key_of(a) < kube::key_of(b);
    });
    if (kind.kind == "Pod") overlay_pods(objects);
    if (kind.kind == "PodGroup") overlay_podgroups(objects);
    for (auto& o : objects) out.push_back(std::move(o));
  }
  return out;
}

void ClusterCache::assume_bound(const std::string& pod_key, const std::string& uid, const std::string& node) {
  std::lock_guard lock(mu_);
  assumed_[pod_key] = {uid, node};
}

void ClusterCache::forget_bound(const std::string& pod_key) {
  std::lock_guard lock(mu_);
  assumed_.erase(pod_key);
}

void ClusterCache::assume_status(const std::string& podgroup_key, const json& status,
                                 const std::string& cached_version) {
  std::lock_guard lock(mu_);
  statuses_[podgroup_key] = {status, cached_version};
}

}  // namespace weft::scheduler
