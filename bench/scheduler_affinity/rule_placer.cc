#include "bench/scheduler_affinity/rule_placer.h"

#include <algorithm>
#include <thread>

#include "bench/native_gang/naive_placer.h"
#include "kube/client/resource.h"
#include "kube/objects.h"

namespace weft::bench {

using nlohmann::json;

RulePlacer::RulePlacer(kube::Client& client, const AffinityCase& a, int threads)
    : client_(client), case_(a), threads_(threads), per_domain_(a.rules.size()) {}

Status RulePlacer::sync() {
  auto s = read_rooms(client_, nodes_, [this](const json& pod, const NodeRoom& n) { count(pod, n); });
  if (!s) return s;
  // Every domain of every rule, empty ones too (skew counts them).
  for (size_t r = 0; r < case_.rules.size(); ++r)
    for (const auto& n : nodes_)
      if (auto l = n.labels.find(case_.rules[r].key); l != n.labels.end()) per_domain_[r][l->second];
  return {};
}

bool RulePlacer::allowed(const Rule& r, size_t rule, const Node& n) const {
  auto l = n.labels.find(r.key);
  if (r.kind == Rule::Kind::NodeLabelIn)
    return l != n.labels.end() && std::find(r.values.begin(), r.values.end(), l->second) != r.values.end();
  if (l == n.labels.end()) return r.kind == Rule::Kind::OnePerDomain;   // an anti-affinity term skips such nodes
  const auto& counts = per_domain_[rule];
  const int here = counts.at(l->second);
  switch (r.kind) {
    case Rule::Kind::OnePerDomain: return here == 0;
    case Rule::Kind::OneDomain: {
      for (const auto& [d, c] : counts)
        if (c > 0) return d == l->second;
      return true;   // the first pod of a self-affine group
    }
    case Rule::Kind::MaxSkew: {
      int lo = here;
      for (const auto& [d, c] : counts) lo = std::min(lo, c);
      return here + 1 - lo <= r.max_skew;
    }
    case Rule::Kind::NodeLabelIn: break;
  }
  return true;
}

void RulePlacer::count(const json& pod, const Node& n) {
  for (size_t r = 0; r < case_.rules.size(); ++r) {
    auto l = n.labels.find(case_.rules[r].key);
    if (l != n.labels.end() && matches(case_.rules[r], pod)) ++per_domain_[r][l->second];
  }
}

int RulePlacer::place(const json& pod, const kube::ResourceList& request) {
  for (size_t tried = 0; tried < nodes_.size(); ++tried, cursor_ = (cursor_ + 1) % nodes_.size()) {
    Node& n = nodes_[cursor_];
    if (!kube::fits(request, n.free)) continue;
    bool ok = true;
    for (size_t r = 0; r < case_.rules.size() && ok; ++r)
      ok = !matches(case_.rules[r], pod) || allowed(case_.rules[r], r, n);
    if (!ok) continue;
    kube::subtract_from(n.free, request);
    count(pod, n);
    const int chosen = static_cast<int>(cursor_);
    cursor_ = (cursor_ + 1) % nodes_.size();
    return chosen;
  }
  return -1;
}

Status RulePlacer::run(std::chrono::steady_clock::time_point deadline) {
  const size_t want = case_.c.pods.size();
  int unplaceable = 0;
  while (placed_.size() < want && std::chrono::steady_clock::now() < deadline) {
    auto pods = client_.list(kube::resources::pods(), case_.c.ns,
                             kube::ListOptions{.label_selector = "app=" + case_.c.label});
    if (!pods) return make_error(pods.message());
    std::vector<std::pair<std::string, std::string>> batch;   // pod -> node
    for (const auto& p : pods->items) {
      const std::string name = kube::name_of(p);
      if (!p["spec"].value("nodeName", "").empty() || placed_.count(name)) continue;
      placed_.insert(name);
      const int node = place(p, pod_request(p));
      if (node < 0) ++unplaceable;
      else batch.emplace_back(name, nodes_[node].name);
    }
    std::string error;
    parallel(static_cast<int>(batch.size()), threads_, [&](int i) {
      return client_.bind(case_.c.ns, batch[i].first, batch[i].second).ok();
    }, &error);
    if (!error.empty()) return make_error("binding: " + error);
    if (batch.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (unplaceable) return make_error(std::to_string(unplaceable) + " pod(s) found no node");
  return placed_.size() < want ? make_error("pods never all created") : Status{};
}

}  // namespace weft::bench
