// On one node: which evictions free room for how many pods of a gang, cheapest first.
// Cheapest is fewest pods, then the lowest priorities, then the least usage.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <algorithm>

namespace weft::descheduler::defragment {

// A dense request or free room, one slot per resource of the scheduler's accounting
// (scheduler::query::Fit::dims), "pods" included.
using Request = std::vector<int64_t>;

// A pod's request as the Fit keeps it (scheduler::query::Fit::request), held.
inline Request request_of(std::span<const int64_t> r) { return {r.begin(), r.end()}; }

// Elementwise max of requests (a shape every one of them fits in).
inline Request max_of(Request a, std::span<const int64_t> b) {
  for (size_t d = 0; d < a.size(); ++d) a[d] = std::max(a[d], b[d]);
  return a;
}

struct Cost {
  int pods = 0;
  int64_t priority = 0;   // sum over the evicted pods
  double usage = 0;       // sum of each pod's largest share of its node

  static Cost infinite() { return {std::numeric_limits<int>::max(), 0, 0}; }
  bool finite() const { return pods != std::numeric_limits<int>::max(); }
  Cost operator+(const Cost& o) const {
    if (!finite() || !o.finite()) return infinite();
    return {pods + o.pods, priority + o.priority, usage + o.usage};
  }
  friend bool operator<(const Cost& a, const Cost& b) {
    if (a.pods != b.pods) return a.pods < b.pods;
    if (a.priority != b.priority) return a.priority < b.priority;
    return a.usage < b.usage - 1e-12;
  }
};

struct Movable {
  int pod = -1;        // snapshot pod index
  Request request;
  Cost cost;           // of evicting this pod alone
};

struct Option {
  int slots = 0;               // gang pods that fit after the evictions (capped)
  Cost cost;
  std::vector<int> victims;    // snapshot pod indices
};

// How many pods of `shape` fit in `free`, at most `cap`.
int slots_in(const Request& free, const Request& shape, int cap);

// Option 0 evicts nothing; each further option holds more slots at a higher cost, the
// cheapest set found for that many. Exact (every subset) up to kExactLimit movable pods,
// else greedy by how much of the shortfall each pod closes. No option evicts more than
// max_victims pods.
inline constexpr size_t kExactLimit = 10;
std::vector<Option> node_options(const Request& free, const Request& shape, const std::vector<Movable>& movable,
                                 int cap, int max_victims);

}  // namespace weft::descheduler::defragment
