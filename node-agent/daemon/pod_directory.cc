#include "node-agent/daemon/pod_directory.h"

#include "kube/client/informer.h"
#include "kube/objects.h"

namespace weft::agent {

namespace {

std::string uid_of(const nlohmann::json& pod) {
  auto meta = pod.find("metadata");
  if (meta == pod.end() || !meta->is_object()) return "";
  auto uid = meta->find("uid");
  return uid != meta->end() && uid->is_string() ? uid->get<std::string>() : "";
}

// The demo runtime's group name for a pod, without its "pod-" prefix.
std::string runtime_name_of(const PodName& p) { return p.ns + "-" + p.name; }

}  // namespace

void name_pods(const PodDirectory* directory, std::vector<PodLoad>& pods) {
  std::vector<PodLoad> named;
  named.reserve(pods.size());
  for (auto& p : pods) {
    if (!directory) break;
    auto name = p.uid.empty() ? directory->by_runtime_name(p.runtime_name) : directory->by_uid(p.uid);
    if (!name) continue;
    p.ns = name->ns;
    p.name = name->name;
    named.push_back(std::move(p));
  }
  pods = std::move(named);
}

void PodIndex::upsert(const nlohmann::json& pod) {
  PodName p{weft::kube::namespace_of(pod), weft::kube::name_of(pod)};
  if (p.name.empty()) return;
  const std::string uid = uid_of(pod);
  std::lock_guard lock(mu_);
  if (!uid.empty()) by_uid_[uid] = p;
  by_runtime_name_[runtime_name_of(p)] = p;
}

void PodIndex::remove(const nlohmann::json& pod) {
  PodName p{weft::kube::namespace_of(pod), weft::kube::name_of(pod)};
  std::lock_guard lock(mu_);
  by_uid_.erase(uid_of(pod));
  by_runtime_name_.erase(runtime_name_of(p));
}

std::optional<PodName> PodIndex::by_uid(const std::string& uid) const {
  std::lock_guard lock(mu_);
  auto it = by_uid_.find(uid);
  if (it == by_uid_.end()) return std::nullopt;
  return it->second;
}

std::optional<PodName> PodIndex::by_runtime_name(const std::string& runtime_name) const {
  std::lock_guard lock(mu_);
  auto it = by_runtime_name_.find(runtime_name);
  if (it == by_runtime_name_.end()) return std::nullopt;
  return it->second;
}

size_t PodIndex::size() const {
  std::lock_guard lock(mu_);
  return by_runtime_name_.size();
}

Result<std::unique_ptr<KubePodDirectory>> KubePodDirectory::start(std::unique_ptr<weft::kube::Client> client,
                                                                  const std::string& node) {
  if (node.empty()) return make_error("pod directory: no node name");
  std::unique_ptr<KubePodDirectory> d(new KubePodDirectory());
  d->client_ = std::move(client);
  weft::kube::InformerOptions options;
  options.field_selector = "spec.nodeName=" + node;
  // Only the names and uid are read; a node's pods may carry large specs.
  options.transform = [](nlohmann::json& pod) {
    nlohmann::json meta = nlohmann::json::object();
    if (auto m = pod.find("metadata"); m != pod.end() && m->is_object()) {
      for (const char* k : {"name", "namespace", "uid", "resourceVersion"}) {
        if (auto v = m->find(k); v != m->end()) meta[k] = *v;
      }
    }
    pod = {{"metadata", std::move(meta)}};
  };
  d->informer_ = std::make_unique<weft::kube::Informer>(*d->client_, weft::kube::resources::pods(), "", options);
  PodIndex* index = &d->index_;
  d->informer_->add_handlers({
      .on_add = [index](const nlohmann::json& pod) { index->upsert(pod); },
      .on_update = [index](const nlohmann::json&, const nlohmann::json& pod) { index->upsert(pod); },
      .on_delete = [index](const nlohmann::json& pod) { index->remove(pod); },
  });
  d->informer_->start();
  return d;
}

KubePodDirectory::~KubePodDirectory() {
  if (informer_) informer_->stop();
}

}  // namespace weft::agent
