#include "descheduler/core/defragment/node_room.h"

#include <algorithm>
#include <bit>

namespace weft::descheduler::defragment {

int slots_in(const Request& free, const Request& shape, int cap) {
  int64_t n = cap;
  for (size_t d = 0; d < shape.size() && n > 0; ++d)
    if (shape[d] > 0) n = std::min<int64_t>(n, free[d] < 0 ? 0 : free[d] / shape[d]);
  return static_cast<int>(std::max<int64_t>(n, 0));
}

namespace {

// Keeps, for each slot count above the base, the cheapest set reaching at least it, and
// drops a count whose set costs no less than one reaching more.
std::vector<Option> compact(int base, std::vector<Option> best_at_least) {
  std::vector<Option> out{{base, Cost{}, {}}};
  for (size_t k = static_cast<size_t>(base) + 1; k < best_at_least.size(); ++k) {
    Option& o = best_at_least[k];
    if (!o.cost.finite()) continue;
    bool dominated = k + 1 < best_at_least.size() && !(o.cost < best_at_least[k + 1].cost);
    if (!dominated) out.push_back(std::move(o));
  }
  return out;
}

std::vector<Option> exact(const Request& free, const Request& shape, const std::vector<Movable>& mv, int cap,
                          int max_victims, int base) {
  const size_t m = mv.size(), D = free.size();
  std::vector<Option> best(static_cast<size_t>(cap) + 1, Option{0, Cost::infinite(), {}});
  std::vector<int64_t> sums((size_t{1} << m) * D);
  std::vector<Cost> costs(size_t{1} << m);
  std::copy(free.begin(), free.end(), sums.begin());
  std::vector<int> best_mask(best.size(), -1);
  for (size_t mask = 1; mask < (size_t{1} << m); ++mask) {
    size_t low = static_cast<size_t>(std::countr_zero(mask)), rest = mask & (mask - 1);
    for (size_t d = 0; d < D; ++d) sums[mask * D + d] = sums[rest * D + d] + mv[low].request[d];
    costs[mask] = costs[rest] + mv[low].cost;
    if (std::popcount(mask) > max_victims) continue;
    Request after(sums.begin() + static_cast<std::ptrdiff_t>(mask * D),
                  sums.begin() + static_cast<std::ptrdiff_t>((mask + 1) * D));
    int s = slots_in(after, shape, cap);
    if (s <= base) continue;
    if (costs[mask] < best[static_cast<size_t>(s)].cost) {
      best[static_cast<size_t>(s)].cost = costs[mask];
      best_mask[static_cast<size_t>(s)] = static_cast<int>(mask);
    }
  }
  // At least k slots: the cheapest over every count >= k.
  for (int k = cap - 1; k > base; --k)
    if (best[static_cast<size_t>(k) + 1].cost < best[static_cast<size_t>(k)].cost) {
      best[static_cast<size_t>(k)].cost = best[static_cast<size_t>(k) + 1].cost;
      best_mask[static_cast<size_t>(k)] = best_mask[static_cast<size_t>(k) + 1];
    }
  for (int k = base + 1; k <= cap; ++k) {
    Option& o = best[static_cast<size_t>(k)];
    int mask = best_mask[static_cast<size_t>(k)];
    if (mask < 0) continue;
    o.slots = k;
    for (size_t i = 0; i < m; ++i)
      if (mask & (1 << i)) o.victims.push_back(mv[i].pod);
  }
  return compact(base, std::move(best));
}

std::vector<Option> greedy(const Request& free, const Request& shape, const std::vector<Movable>& mv, int cap,
                           int max_victims, int base) {
  std::vector<Option> best(static_cast<size_t>(cap) + 1, Option{0, Cost::infinite(), {}});
  Request cur = free;
  std::vector<bool> used(mv.size(), false);
  Option acc{base, Cost{}, {}};
  for (int k = base + 1; k <= cap; ++k) {
    while (acc.slots < k && static_cast<int>(acc.victims.size()) < max_victims) {
      int pick = -1;
      double pick_score = 0;
      for (size_t i = 0; i < mv.size(); ++i) {
        if (used[i]) continue;
        double score = 0;
        for (size_t d = 0; d < shape.size(); ++d) {
          int64_t deficit = static_cast<int64_t>(k) * shape[d] - cur[d];
          if (shape[d] <= 0 || deficit <= 0) continue;
          score += static_cast<double>(std::min(mv[i].request[d], deficit)) / static_cast<double>(deficit);
        }
        if (score <= 0) continue;
        if (pick < 0 || score > pick_score + 1e-12 ||
            (score > pick_score - 1e-12 && mv[i].cost < mv[static_cast<size_t>(pick)].cost)) {
          pick = static_cast<int>(i);
          pick_score = score;
        }
      }
      if (pick < 0) break;
      used[static_cast<size_t>(pick)] = true;
      const Movable& v = mv[static_cast<size_t>(pick)];
      for (size_t d = 0; d < cur.size(); ++d) cur[d] += v.request[d];
      acc.cost = acc.cost + v.cost;
      acc.victims.push_back(v.pod);
      acc.slots = slots_in(cur, shape, cap);
    }
    if (acc.slots < k) break;
    best[static_cast<size_t>(k)] = acc;
    best[static_cast<size_t>(k)].slots = k;
  }
  return compact(base, std::move(best));
}

}  // namespace

std::vector<Option> node_options(const Request& free, const Request& shape, const std::vector<Movable>& movable,
                                 int cap, int max_victims) {
  int base = slots_in(free, shape, cap);
  if (base >= cap || movable.empty() || max_victims <= 0) return {{base, Cost{}, {}}};
  if (movable.size() <= kExactLimit) return exact(free, shape, movable, cap, max_victims, base);
  return greedy(free, shape, movable, cap, max_victims, base);
}

}  // namespace weft::descheduler::defragment
