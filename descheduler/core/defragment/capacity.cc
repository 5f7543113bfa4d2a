#include "descheduler/core/defragment/capacity.h"

#include <algorithm>
#include <limits>
#include <set>

namespace weft::descheduler::defragment {
namespace {

constexpr int64_t kUnlimited = std::numeric_limits<int64_t>::max() / 4;

}  // namespace

Capacity::Capacity(const scheduler::Snapshot& s) {
  std::set<std::string> names{"cpu", "memory", "pods"};
  for (const auto& n : s.nodes)
    for (const auto& [k, v] : n.allocatable) names.insert(k);
  for (const auto& p : s.pods)
    for (const auto& [k, v] : p.request) names.insert(k);
  names_.assign(names.begin(), names.end());
  auto dim = [&](const std::string& k) {
    return static_cast<size_t>(std::lower_bound(names_.begin(), names_.end(), k) - names_.begin());
  };
  const size_t D = names_.size(), pods = dim("pods");
  alloc_.assign(s.nodes.size() * D, 0);
  for (size_t i = 0; i < s.nodes.size(); ++i) {
    for (const auto& [k, v] : s.nodes[i].allocatable) alloc_[i * D + dim(k)] = v;
    if (!s.nodes[i].allocatable.count("pods")) alloc_[i * D + pods] = kUnlimited;
  }
  free_ = alloc_;
  requests_.resize(s.pods.size());
  for (size_t p = 0; p < s.pods.size(); ++p) {
    Request& r = requests_[p];
    r.assign(D, 0);
    for (const auto& [k, v] : s.pods[p].request)
      if (k != "pods") r[dim(k)] = v;
    r[pods] = 1000;
  }
}

bool Capacity::fits(int node, const Request& r) const {
  for (size_t d = 0; d < r.size(); ++d)
    if (r[d] > free_[index(node, static_cast<int>(d))]) return false;
  return true;
}

void Capacity::take(int node, const Request& r) {
  for (size_t d = 0; d < r.size(); ++d) free_[index(node, static_cast<int>(d))] -= r[d];
}

void Capacity::give(int node, const Request& r) {
  for (size_t d = 0; d < r.size(); ++d) free_[index(node, static_cast<int>(d))] += r[d];
}

Request Capacity::max_of(const Request& a, const Request& b) {
  Request out = a;
  for (size_t d = 0; d < out.size(); ++d) out[d] = std::max(out[d], b[d]);
  return out;
}

double Capacity::share(int pod, int node) const {
  double worst = 0;
  const Request& r = request(pod);
  for (size_t d = 0; d < r.size(); ++d) {
    int64_t a = alloc_[index(node, static_cast<int>(d))];
    if (names_[d] != "pods" && a > 0 && a < kUnlimited) worst = std::max(worst, static_cast<double>(r[d]) / static_cast<double>(a));
  }
  return worst;
}

}  // namespace weft::descheduler::defragment
