#include "scheduler/app/run_cache.h"

#include <algorithm>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/keys.h"
#include "kube/client/projection.h"
#include "kube/objects.h"
#include "kube/workload.h"
#include "scheduler/core/native_groups.h"
#include "scheduler/core/node_fields.h"
#include "scheduler/core/pod_fields.h"

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
      // What the volume filters read (scheduler/core/storage.h).
      {res::namespaces(), "v1", "Namespace", false},   // namespaceSelector of pod (anti-)affinity
      {res::persistentvolumes(), "v1", "PersistentVolume", false},
      {res::persistentvolumeclaims(), "v1", "PersistentVolumeClaim", false},
      {res::storageclasses(), "storage.k8s.io/v1", "StorageClass", false},
      {res::csinodes(), "storage.k8s.io/v1", "CSINode", false},
      {res::native_podgroups(), "scheduling.k8s.io/v1beta1", "PodGroup", false},
      {res::composite_podgroups(), "scheduling.k8s.io/v1alpha3", "CompositePodGroup", false},
      {res::workloads(), "scheduling.k8s.io/v1beta1", "Workload", false},
  };
}

json scheduler_projection(const std::string& kind) {
  // kube/objects.cc and scheduler/core/snapshot.cc read these; run_apply needs uid and
  // resourceVersion for bindings and Events.
  const json meta = {{"name", true},          {"namespace", true},         {"uid", true},
                     {"resourceVersion", true}, {"creationTimestamp", true}, {"deletionTimestamp", true}};
  if (kind == "Pod") {
    json pod_meta = meta;
    // Only the annotations the core reads: real pods carry kilobytes of others (sidecars, scrape configs).
    // (The arrival cycle only matters to `simulate`, which the scenario test runs on this form.)
    // volcano.sh/preemptable and volcano.sh/task-spec may be a label or an annotation.
    pod_meta["annotations"] = {{keys::kGroupAnnotation, true},
                               {"scheduling.volcano.sh/group-name", true},
                               {keys::kArrivalAnnotation, true},
                               {"volcano.sh/preemptable", true},
                               {"volcano.sh/task-spec", true}};
    pod_meta["labels"] = true;   // sub-group selectors and ranks read any label
    const json container = {{"resources", {{"requests", true}, {"limits", true}}}, {"ports", true}};
    return {{"metadata", pod_meta},
            {"spec",
             {{"volumes", true},
              {"nodeName", true},
              {"schedulerName", true},
              {"priority", true},
              {"priorityClassName", true},
              {"tolerations", true},
              {"nodeSelector", true},
              {"affinity", true},
              {"topologySpreadConstraints", true},
              {"schedulingGates", true},
              {"resourceClaims", true},
              {"resources", true},
              {"containers", container},
              {"initContainers", {{"resources", {{"requests", true}, {"limits", true}}}, {"restartPolicy", true}, {"ports", true}}},
              {"overhead", true},
              {"schedulingGroup", true}}},
            // When it was bound (load-aware scoring: what its node's report has not seen).
            {"status",
             {{"phase", true},
              {"startTime", true},
              {"conditions", {{"type", true}, {"status", true}, {"lastTransitionTime", true}}}}}};
  }
  if (kind == "Node") {
    json node_meta = meta;
    node_meta["labels"] = true;
    node_meta["annotations"] = true;
    return {{"metadata", node_meta},
            {"spec", {{"unschedulable", true}, {"taints", true}}},
            {"status",
             {{"allocatable", true}, {"capacity", true}, {"conditions", {{"type", true}, {"status", true}}}}}};
  }
  return nullptr;
}

void to_cached_form(json& object, const std::string& api_version, const std::string& kind) {
  static const json pod = scheduler_projection("Pod"), node = scheduler_projection("Node");
  kube::strip_managed_fields(object);
  if (kind == "Pod") {
    kube::project(object, pod);
    // Of a pod's conditions the core reads PodScheduled only (when it was bound).
    if (auto st = object.find("status"); st != object.end() && st->is_object())
      if (auto c = st->find("conditions"); c != st->end() && c->is_array()) {
        json kept = json::array();
        for (auto& cond : *c)
          if (cond.is_object() && cond.value("type", "") == "PodScheduled") kept.push_back(std::move(cond));
        *c = std::move(kept);
      }
  }
  if (kind == "Node") kube::project(object, node);
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) {
    if (auto a = m->find("annotations"); a != m->end() && a->is_object())
      a->erase("kubectl.kubernetes.io/last-applied-configuration");
  }
  object["apiVersion"] = api_version;
  object["kind"] = kind;
}

namespace {
bool decoded_kind(const std::string& kind) { return kind == "Pod" || kind == "Node"; }
}  // namespace

DecodedPtr decode_object(const json& object, DecodePools* pools) {
  const std::string kind = kube::kind_of(object), where = kind + " " + kube::key_of(object);
  auto undecodable = [&](const std::string& message) {
    return DecodedObject::Undecodable{kind, kube::key_of(object), message};
  };
  auto d = std::make_shared<DecodedObject>(DecodedObject{undecodable(where + ": not a Pod or a Node"), {}, {}, {}});
  if (kind == "Pod") {
    auto p = pod_info_of(object, where, pools);
    if (p) d->value = std::move(*p);
    else d->value = undecodable(p.message());
  } else if (kind == "Node") {
    auto n = node_info_of(object, where, pools);
    if (n) d->value = std::move(*n);
    else d->value = undecodable(n.message());
  }
  d->uid = kube::metadata_string(object, "uid");
  d->version = kube::metadata_string(object, "resourceVersion");
  d->created = kube::metadata_string(object, "creationTimestamp");
  return d;
}

DecodedPtr decode_object_text(const std::string& kind, const std::string& key, std::string_view text,
                              DecodePools* pools) {
  const std::string where = kind + " " + key;
  auto d = std::make_shared<DecodedObject>();
  auto undecodable = [&](const std::string& message) {
    d->value = DecodedObject::Undecodable{kind, key, message};
    return d;
  };
  auto take = [&](auto& fields, auto decode) {
    d->uid = std::move(fields.uid);
    d->version = std::move(fields.resource_version);
    d->created = std::move(fields.created);
    auto info = decode(std::move(fields), where, pools);
    if (!info) return undecodable(info.message());
    d->value = std::move(*info);
    return d;
  };
  if (kind == "Pod") {
    auto fields = pod_fields_of_text(text, /*checked=*/true);
    if (!fields) return undecodable(where + ": " + fields.message());
    return take(*fields, pod_info_from);
  }
  if (kind == "Node") {
    auto fields = node_fields_of_text(text, /*checked=*/true);
    if (!fields) return undecodable(where + ": " + fields.message());
    return take(*fields, node_info_from);
  }
  return undecodable(where + ": not a Pod or a Node");
}

const std::string& DecodedObject::kind() const {
  static const std::string pod_kind = "Pod", node_kind = "Node";
  if (pod()) return pod_kind;
  if (node()) return node_kind;
  return undecodable()->kind;
}

const std::string& DecodedObject::key() const {
  if (auto p = pod()) return p->key;
  if (auto n = node()) return n->name;
  return undecodable()->key;
}

json DecodedObject::reference() const {
  json meta = json::object();
  if (auto p = pod()) {
    meta["name"] = p->name;
    meta["namespace"] = p->namespace_name;
  } else if (auto n = node()) {
    meta["name"] = n->name;
  }
  if (!uid.empty()) meta["uid"] = uid;
  if (!version.empty()) meta["resourceVersion"] = version;
  if (!created.empty()) meta["creationTimestamp"] = created;
  return {{"apiVersion", "v1"}, {"kind", kind()}, {"metadata", std::move(meta)}};
}

ClusterCache::ClusterCache(kube::Client& client, ClusterCacheOptions options) : client_(client), options_(options) {}

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
    options.compact = true;
    options.keep_objects = !decoded_kind(kind.kind);
    // Pods and Nodes are decoded from each event's text into the typed cache.
    options.raw = decoded_kind(kind.kind) && options_.decode_from_text;
    options.keep = scheduler_projection(kind.kind);
    options.transform = [api_version = kind.api_version, kind_name = kind.kind](json& object) {
      to_cached_form(object, api_version, kind_name);
    };
    auto informer = std::make_unique<kube::Informer>(client_, kind.ref, "", options);
    if (decoded_kind(kind.kind) && !options.raw)
      informer->add_handlers({.on_add = [this](const json& o) { store(decode_object(o, &pools_)); },
                              .on_update = [this](const json&, const json& o) { store(decode_object(o, &pools_)); },
                              .on_delete = [this](const json& o) { erase(kube::kind_of(o), kube::key_of(o)); }});
    if (options.raw)
      informer->add_raw_handlers(
          {.on_object = [this, kind = kind.kind](const std::string& key,
                                                 std::string_view text) { store(kind, key, text); },
           .on_delete = [this, kind = kind.kind](const std::string& key) { erase(kind, key); }});
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

void ClusterCache::note_arrival(const std::string& kind, bool inserted, const DecodedObject& d) {
  if (!inserted || kind != "Pod" || !d.pod() || !d.pod()->node.empty()) return;
  last_arrival_.store(std::chrono::steady_clock::now().time_since_epoch().count());
  arrivals_.fetch_add(1);
}

void ClusterCache::store(const std::string& kind, const std::string& key, std::string_view text) {
  DecodedPtr d = decode_object_text(kind, key, text, &pools_);
  std::lock_guard lock(decoded_mu_);
  auto [it, inserted] = decoded_[kind].insert_or_assign(key, d);   // under the informer's key, which its deletes name
  note_arrival(kind, inserted, *d);
}

void ClusterCache::store(DecodedPtr d) {
  std::lock_guard lock(decoded_mu_);
  auto [it, inserted] = decoded_[d->kind()].insert_or_assign(d->key(), d);
  note_arrival(d->kind(), inserted, *d);
}

void ClusterCache::erase(const std::string& kind, const std::string& key) {
  std::lock_guard lock(decoded_mu_);
  decoded_[kind].erase(key);
}

size_t ClusterCache::decoded_size(const std::string& kind) const {
  std::lock_guard lock(decoded_mu_);
  auto it = decoded_.find(kind);
  return it == decoded_.end() ? 0 : it->second.size();
}

ClusterCache::PodOverlay ClusterCache::overlay_pod(const DecodedObject& pod, std::set<std::string>& seen,
                                                  std::set<std::string>& still_leaving) {
  const std::string& key = pod.key();
  PodOverlay out;
  if (auto e = evicted_.find(key); e != evicted_.end() && e->second.uid == pod.uid) {
    out.leaving = true;
    still_leaving.insert(key);
  }
  auto it = assumed_.find(key);
  if (it == assumed_.end()) return out;
  const bool bound = pod.pod() && !pod.pod()->node.empty();
  if ((!it->second.uid.empty() && pod.uid != it->second.uid) || bound) {
    assumed_.erase(it);   // a new pod of that name, or the watch has shown the binding
    return out;
  }
  seen.insert(key);
  out.node = it->second.node;
  return out;
}

void ClusterCache::overlay_podgroup(const std::string& key, json& pg, std::set<std::string>& seen) {
  auto it = statuses_.find(key);
  if (it == statuses_.end()) return;
  if (kube::metadata_string(pg, "resourceVersion") != it->second.cached_version) {
    statuses_.erase(it);   // the cache has moved on (our write or a later one)
    return;
  }
  seen.insert(key);
  pg["status"] = it->second.status;
}

void ClusterCache::visit(const std::function<void(json& object)>& other,
                         const std::function<void(const DecodedPtr& object, const PodOverlay& overlay)>& decoded) {
  uint64_t visit = 0;
  {
    std::lock_guard lock(mu_);
    visit = ++visits_;
  }
  for (auto& [kind, informer] : informers_) {
    const bool pods = kind.kind == "Pod", podgroups = kind.kind == "PodGroup";
    std::set<std::string> seen, still_leaving;
    if (decoded_kind(kind.kind)) {
      std::vector<DecodedPtr> objects;
      {
        std::lock_guard lock(decoded_mu_);
        const auto& by_key = decoded_[kind.kind];
        objects.reserve(by_key.size());
        for (const auto& [key, d] : by_key) objects.push_back(d);
      }
      for (auto& d : objects) {
        PodOverlay overlay;
        if (pods) {
          std::lock_guard lock(mu_);
          overlay = overlay_pod(*d, seen, still_leaving);
        }
        decoded(d, overlay);
        d = nullptr;
      }
    } else {
      informer->visit([&](const std::string&, json&& object) {
        if (podgroups) {   // by the key the core gives the group (two API groups have PodGroups)
          std::lock_guard lock(mu_);
          overlay_podgroup(group_key_of(object), object, seen);
        }
        other(object);
      });
    }
    // Assumed for objects that are gone: forget them.
    std::lock_guard lock(mu_);
    if (pods) {
      std::erase_if(assumed_, [&](const auto& a) { return !seen.count(a.first); });
      // Gone or replaced; one told after this visit began may not have been looked at yet.
      std::erase_if(evicted_, [&](const auto& e) { return e.second.since_visit < visit && !still_leaving.count(e.first); });
    }
    if (podgroups) {   // only this API group's: the other's PodGroups are visited apart
      const bool native = kind.ref.group == kube::kWorkloadApiGroup;
      std::erase_if(statuses_, [&](const auto& a) {
        return kube::split_native_group_key(a.first).has_value() == native && !seen.count(a.first);
      });
    }
  }
  pools_.sweep();   // texts and constraints of pods that are gone
}

void ClusterCache::assume_bound(const std::string& pod_key, const std::string& uid, const std::string& node) {
  std::lock_guard lock(mu_);
  assumed_[pod_key] = {uid, pools_.strings.intern(node)};
}

void ClusterCache::assume_evicted(const std::string& pod_key, const std::string& uid) {
  if (uid.empty()) return;   // could not tell the pod from a new one of its name
  std::lock_guard lock(mu_);
  evicted_[pod_key] = {uid, visits_};
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

void ClusterCache::forget_status(const std::string& podgroup_key) {
  std::lock_guard lock(mu_);
  statuses_.erase(podgroup_key);
}

}  // namespace weft::scheduler
