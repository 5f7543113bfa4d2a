#include "descheduler/core/defragment/domain_search.h"

#include <algorithm>

namespace weft::descheduler::defragment {

DomainPlan DomainSearch::cheapest(const std::vector<int>& nodes, const OptionsOf& options_of, int need) {
  DomainPlan plan;
  const size_t W = static_cast<size_t>(need) + 1;
  useful_.clear();
  int64_t most = 0;
  for (int n : nodes) {
    const auto& opts = options_of(n);
    if (opts.empty() || opts.back().slots == 0) continue;
    useful_.push_back(n);
    most += opts.back().slots;
  }
  if (most < need) return plan;
  dp_.assign(W, Cost::infinite());
  next_.resize(W);
  dp_[0] = Cost{};
  // Per useful node and reached count: the option taken and the count before it.
  took_.assign(useful_.size() * W, -1);
  from_.assign(useful_.size() * W, -1);
  for (size_t i = 0; i < useful_.size(); ++i) {
    const auto& opts = options_of(useful_[i]);
    std::fill(next_.begin(), next_.end(), Cost::infinite());
    for (size_t j = 0; j < W; ++j) {
      if (!dp_[j].finite()) continue;
      for (size_t o = 0; o < opts.size(); ++o) {
        size_t to = std::min(W - 1, j + static_cast<size_t>(opts[o].slots));
        Cost c = dp_[j] + opts[o].cost;
        if (c < next_[to]) {
          next_[to] = c;
          took_[i * W + to] = static_cast<int>(o);
          from_[i * W + to] = static_cast<int>(j);
        }
      }
    }
    dp_.swap(next_);
  }
  if (!dp_[W - 1].finite()) return plan;
  plan.cost = dp_[W - 1];
  size_t j = W - 1;
  for (size_t i = useful_.size(); i-- > 0;) {
    int o = took_[i * W + j];
    if (options_of(useful_[i])[static_cast<size_t>(o)].slots > 0) plan.picks.push_back({useful_[i], o});
    j = static_cast<size_t>(from_[i * W + j]);
  }
  std::reverse(plan.picks.begin(), plan.picks.end());
  return plan;
}

}  // namespace weft::descheduler::defragment
