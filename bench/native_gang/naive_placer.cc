#include "bench/native_gang/naive_placer.h"

#include <set>
#include <thread>

#include "bench/scheduler_run/phases.h"
#include "kube/client/resource.h"
#include "kube/objects.h"

namespace weft::bench {

using nlohmann::json;

kube::ResourceList pod_request(const json& pod) {
  kube::ResourceList sum{{"pods", 1000}};
  const json containers = pod["spec"].value("containers", json::array());
  for (const auto& c : containers) {
    const json requests = c.value("resources", json::object()).value("requests", json::object());
    if (auto r = kube::parse_resource_list(requests)) kube::add_to(sum, *r);
  }
  return sum;
}

Status read_rooms(kube::Client& client, std::vector<NodeRoom>& nodes,
                  const std::function<void(const json& pod, const NodeRoom& node)>& on_bound) {
  auto listed = client.list(kube::resources::nodes(), "");
  if (!listed) return make_error(listed.message());
  std::map<std::string, size_t> index;
  for (const auto& n : listed->items) {
    NodeRoom node{.name = kube::name_of(n), .labels = {}, .free = {}};
    const json labels = n["metadata"].value("labels", json::object());
    for (const auto& [k, v] : labels.items()) node.labels[k] = v;
    auto alloc = kube::parse_resource_list(n["status"].value("allocatable", json::object()));
    if (!alloc) return make_error(node.name + ": " + alloc.message());
    node.free = *alloc;
    index[node.name] = nodes.size();
    nodes.push_back(std::move(node));
  }
  auto pods = client.list(kube::resources::pods(), "");
  if (!pods) return make_error(pods.message());
  for (const auto& p : pods->items) {
    auto it = index.find(p["spec"].value("nodeName", ""));
    if (it == index.end()) continue;
    kube::subtract_from(nodes[it->second].free, pod_request(p));
    if (on_bound) on_bound(p, nodes[it->second]);
  }
  return {};
}

NaivePlacer::NaivePlacer(kube::Client& client, const Case& c, int threads)
    : client_(client), case_(c), threads_(threads) {}

Status NaivePlacer::sync() { return read_rooms(client_, nodes_, {}); }

std::vector<std::vector<size_t>> NaivePlacer::domains(const std::string& key, const std::vector<size_t>& nodes) const {
  if (key.empty()) return {nodes};
  std::vector<std::vector<size_t>> out;
  std::map<std::string, size_t> slot;
  for (size_t i : nodes) {
    auto it = nodes_[i].labels.find(key);
    if (it == nodes_[i].labels.end()) continue;   // a node without the key is in no domain
    auto [s, fresh] = slot.emplace(it->second, out.size());
    if (fresh) out.emplace_back();
    out[s->second].push_back(i);
  }
  return out;
}

bool NaivePlacer::place_group(const GroupSpec& g, const std::vector<size_t>& nodes, Placement& out, Undo& undo) {
  for (const auto& domain : domains(g.topology_key, nodes)) {
    const size_t mark = undo.size(), placed = out.size();
    size_t cursor = 0;
    for (const auto& pod : g.pods) {
      const auto& request = requests_.at(pod);
      while (cursor < domain.size() && !kube::fits(request, nodes_[domain[cursor]].free)) ++cursor;
      if (cursor == domain.size()) break;
      undo.emplace_back(domain[cursor], nodes_[domain[cursor]].free);
      kube::subtract_from(nodes_[domain[cursor]].free, request);
      out.emplace_back(pod, domain[cursor]);
    }
    if (out.size() - placed == g.pods.size()) return true;
    for (size_t u = undo.size(); u > mark; --u) nodes_[undo[u - 1].first].free = undo[u - 1].second;
    undo.resize(mark);
    out.resize(placed);
  }
  return false;
}

bool NaivePlacer::place_job(const JobSpec& job, Placement& out) {
  std::vector<size_t> all(nodes_.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (const auto& domain : domains(job.topology_key, all)) {
    Undo undo;
    out.clear();
    bool ok = true;
    for (const auto& g : job.groups) ok = ok && place_group(g, domain, out, undo);
    if (ok) return true;
    for (size_t u = undo.size(); u > 0; --u) nodes_[undo[u - 1].first].free = undo[u - 1].second;
  }
  out.clear();
  return false;
}

Status NaivePlacer::bind(const Placement& placement) {
  std::string error;
  parallel(static_cast<int>(placement.size()), threads_, [&](int i) {
    const auto& [pod, node] = placement[i];
    return client_.bind(case_.ns, pod, nodes_[node].name).ok();
  }, &error);
  return error.empty() ? Status{} : make_error("binding: " + error);
}

Status NaivePlacer::run(std::chrono::steady_clock::time_point deadline) {
  std::vector<bool> done(case_.jobs.size(), false);
  size_t left = case_.jobs.size();
  while (left > 0 && std::chrono::steady_clock::now() < deadline) {
    auto pods = client_.list(kube::resources::pods(), case_.ns, kube::ListOptions{.label_selector = "app=" + case_.label});
    if (!pods) return make_error(pods.message());
    for (const auto& p : pods->items)
      if (p["spec"].value("nodeName", "").empty()) requests_.emplace(kube::name_of(p), pod_request(p));
    Placement batch;
    for (size_t j = 0; j < case_.jobs.size(); ++j) {
      if (done[j]) continue;
      bool complete = true;
      for (const auto& g : case_.jobs[j].groups)
        for (const auto& pod : g.pods) complete = complete && requests_.count(pod);
      if (!complete) continue;
      Placement placed;
      if (place_job(case_.jobs[j], placed)) batch.insert(batch.end(), placed.begin(), placed.end());
      else ++unplaceable_;
      done[j] = true;
      --left;
    }
    if (auto s = bind(batch); !s) return s;
    if (batch.empty() && left > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (unplaceable_) return make_error(std::to_string(unplaceable_) + " job(s) found no domain");
  return left ? make_error(std::to_string(left) + " job(s) never complete") : Status{};
}

}  // namespace weft::bench
