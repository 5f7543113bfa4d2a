// Requests and free room per node in dense arrays (one slot per resource name, plus
// "pods"), as the scheduler counts them: every bound pod holds its request, a node that
// states no "pods" allocatable holds any number of pods.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/core/snapshot.h"

namespace weft::descheduler::defragment {

using Request = std::vector<int64_t>;

class Capacity {
 public:
  explicit Capacity(const scheduler::Snapshot& snapshot);

  int dims() const { return static_cast<int>(names_.size()); }
  const std::string& name(int d) const { return names_[static_cast<size_t>(d)]; }
  const Request& request(int pod) const { return requests_[static_cast<size_t>(pod)]; }
  int64_t free(int node, int d) const { return free_[index(node, d)]; }
  int64_t allocatable(int node, int d) const { return alloc_[index(node, d)]; }
  bool fits(int node, const Request& r) const;
  void take(int node, const Request& r);
  void give(int node, const Request& r);
  // Elementwise max of requests (a shape every one of them fits in).
  static Request max_of(const Request& a, const Request& b);
  // The pod's largest share of the node's allocatable (its "usage" for tie-breaks).
  double share(int pod, int node) const;

 private:
  size_t index(int node, int d) const { return static_cast<size_t>(node) * names_.size() + static_cast<size_t>(d); }
  std::vector<std::string> names_;
  std::vector<int64_t> alloc_, free_;
  std::vector<Request> requests_;
};

}  // namespace weft::descheduler::defragment
