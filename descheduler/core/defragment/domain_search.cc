#include "descheduler/core/defragment/domain_search.h"

#include <algorithm>

namespace weft::descheduler::defragment {

DomainPlan cheapest_in_domain(const std::vector<int>& nodes, const std::vector<std::vector<Option>>& options, int need) {
  DomainPlan plan;
  const size_t W = static_cast<size_t>(need) + 1;
  std::vector<int> useful;
  int64_t most = 0;
  for (int n : nodes) {
    const auto& opts = options[static_cast<size_t>(n)];
    if (opts.empty() || opts.back().slots == 0) continue;
    useful.push_back(n);
    most += opts.back().slots;
  }
  if (most < need) return plan;
  std::vector<Cost> dp(W, Cost::infinite()), next(W);
  dp[0] = Cost{};
  // Per useful node and reached count: the option taken and the count before it.
  std::vector<int> took(useful.size() * W, -1), from(useful.size() * W, -1);
  for (size_t i = 0; i < useful.size(); ++i) {
    const auto& opts = options[static_cast<size_t>(useful[i])];
    std::fill(next.begin(), next.end(), Cost::infinite());
    for (size_t j = 0; j < W; ++j) {
      if (!dp[j].finite()) continue;
      for (size_t o = 0; o < opts.size(); ++o) {
        size_t to = std::min(W - 1, j + static_cast<size_t>(opts[o].slots));
        Cost c = dp[j] + opts[o].cost;
        if (c < next[to]) {
          next[to] = c;
          took[i * W + to] = static_cast<int>(o);
          from[i * W + to] = static_cast<int>(j);
        }
      }
    }
    dp.swap(next);
  }
  if (!dp[W - 1].finite()) return plan;
  plan.cost = dp[W - 1];
  size_t j = W - 1;
  for (size_t i = useful.size(); i-- > 0;) {
    int o = took[i * W + j];
    const Option& opt = options[static_cast<size_t>(useful[i])][static_cast<size_t>(o)];
    if (opt.slots > 0) plan.picks.push_back({useful[i], o});
    j = static_cast<size_t>(from[i * W + j]);
  }
  std::reverse(plan.picks.begin(), plan.picks.end());
  return plan;
}

}  // namespace weft::descheduler::defragment
