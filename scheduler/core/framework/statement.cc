#include "scheduler/core/framework/statement.h"

#include <algorithm>

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

void Statement::allocate(int pod, int node) {
  ssn_.assume(pod, node);
  ops_.push_back({Op::Allocate, pod, node, "", ""});
}

void Statement::pipeline(int pod, int node) {
  ssn_.hold(pod, node);
  ops_.push_back({Op::Pipeline, pod, node, "", ""});
}

void Statement::evict(int pod, const std::string& kind, const std::string& reason) {
  int node = ssn_.node_of_pod[pod];
  ssn_.release(pod, node);
  ++ssn_.jobs[ssn_.job_of_pod[pod]].evicted_this_cycle;
  ops_.push_back({Op::Evict, pod, node, kind, reason});
}

void Statement::commit() {
  for (const auto& e : ops_) {
    const std::string& pod = ssn_.snap.pods[e.pod].key;
    const std::string& node = ssn_.snap.nodes[e.node].name;
    switch (e.op) {
      case Op::Allocate:
        ssn_.out.bindings.push_back({pod, node});
        ssn_.out.events.push_back({"Pod", pod, "Normal", "Scheduled", "Successfully assigned " + pod + " to " + node});
        break;
      case Op::Pipeline:
        // The pod stays pending in the API: only its room on the node stays held, for
        // this session (the job keeps counting it as pipelined).
        ssn_.unhold(e.pod, e.node);
        ssn_.cluster.assume(e.pod, e.node);
        ++ssn_.jobs[ssn_.job_of_pod[e.pod]].pipelined;
        ssn_.pipelined_pod[e.pod] = 1;
        if (has_evictions()) ssn_.out.nominations[pod] = node;
        break;
      case Op::Evict:
        ssn_.out.evictions.push_back({pod, node, e.reason});
        ssn_.out.events.push_back({"Pod", pod, "Normal", e.kind, e.reason});
        break;
    }
  }
  ops_.clear();
}

void Statement::discard() {
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    switch (it->op) {
      case Op::Allocate: ssn_.release(it->pod, it->node); break;
      case Op::Pipeline: ssn_.unhold(it->pod, it->node); break;
      case Op::Evict:
        ssn_.assume(it->pod, it->node);
        --ssn_.jobs[ssn_.job_of_pod[it->pod]].evicted_this_cycle;
        break;
    }
  }
  ops_.clear();
}

void Statement::merge(Statement& other) {
  ops_.insert(ops_.end(), other.ops_.begin(), other.ops_.end());
  other.ops_.clear();
}

bool Statement::has_evictions() const {
  for (const auto& e : ops_)
    if (e.op == Op::Evict) return true;
  return false;
}

size_t Statement::allocated() const {
  size_t n = 0;
  for (const auto& e : ops_) n += e.op != Op::Evict;
  return n;
}

}  // namespace weft::scheduler

namespace weft::scheduler {

std::pair<size_t, int> Statement::eviction_cost() const {
  std::pair<size_t, int> cost{0, 0};
  for (const auto& e : ops_)
    if (e.op == Op::Evict) {
      ++cost.first;
      cost.second = std::max(cost.second, ssn_.snap.pods[e.pod].priority);
    }
  return cost;
}

}  // namespace weft::scheduler

namespace weft::scheduler {

std::vector<int> Statement::evicted_pods() const {
  std::vector<int> out;
  for (const auto& e : ops_)
    if (e.op == Op::Evict) out.push_back(e.pod);
  return out;
}

bool Statement::evicts(int pod) const {
  return std::any_of(ops_.begin(), ops_.end(), [&](const Entry& e) { return e.op == Op::Evict && e.pod == pod; });
}

}  // namespace weft::scheduler
