#include "scheduler/core/framework/session.h"

#include <algorithm>

namespace weft::scheduler {
namespace {

// Volcano's tier rule for victim callbacks: within a tier, the victims every voting
// plugin agrees on; the first tier where some plugin voted decides.
std::vector<int> intersect_by_tier(const std::vector<std::pair<int, VictimsFn>>& fns, int preemptor,
                                   const std::vector<int>& candidates) {
  std::optional<std::vector<int>> victims;
  size_t i = 0;
  while (i < fns.size()) {
    int tier = fns[i].first;
    bool emptied = false;
    for (; i < fns.size() && fns[i].first == tier; ++i) {
      if (emptied) continue;
      auto got = fns[i].second(preemptor, candidates);
      if (!got) continue;   // abstained
      if (got->empty()) {
        victims.reset();
        emptied = true;
        continue;
      }
      if (!victims) {
        victims = std::move(*got);
      } else {
        std::vector<int> keep;
        for (int v : *victims)
          if (std::find(got->begin(), got->end(), v) != got->end()) keep.push_back(v);
        *victims = std::move(keep);
      }
    }
    if (emptied) return {};
    if (victims) return *victims;
  }
  return {};
}

template <class E>
std::vector<std::pair<int, VictimsFn>> flatten(const std::vector<E>& entries) {
  std::vector<std::pair<int, VictimsFn>> out;
  for (const auto& e : entries) out.push_back({e.tier, e.fn});
  return out;
}

// Volcano's vote rule: a reject stops; a permit in a tier decides; all abstaining permits.
template <class E>
bool vote_by_tier(const std::vector<E>& entries, const Job& j, std::string* why) {
  size_t i = 0;
  while (i < entries.size()) {
    int tier = entries[i].tier;
    bool permit = false;
    for (; i < entries.size() && entries[i].tier == tier; ++i) {
      int v = entries[i].fn(j, why);
      if (v < 0) return false;
      if (v > 0) permit = true;
    }
    if (permit) return true;
  }
  return true;
}

}  // namespace

Session::Session(const Snapshot& s, const Config& c, const SessionOptions& o)
    : snap(s), config(c), opts(o), cluster(s, node_callbacks) {
  node_by_name_.reserve(s.nodes.size());
  for (size_t i = 0; i < s.nodes.size(); ++i) node_by_name_.emplace(s.nodes[i].name, static_cast<int>(i));
}

Session::~Session() = default;

const Topology& Session::topo() {
  if (!topology_) topology_ = std::make_unique<Topology>(build_topology(snap));
  return *topology_;
}

int Session::node_index(const std::string& name) const {
  auto it = node_by_name_.find(name);
  return it == node_by_name_.end() ? -1 : it->second;
}

QueueAccount* Session::queue_of(const Job& j) {
  auto it = queues.find(j.queue);
  return it == queues.end() ? nullptr : &it->second;
}

std::string Session::task_role(int pod) const { return snap.pods[pod].task_role; }

void Session::assume(int pod, int node) {
  if (node >= 0) cluster.assume(pod, node);
  Job& j = jobs[job_of_pod[pod]];
  ++j.bound;
  ++j.bound_by_task[snap.pods[pod].task_role];   // "" counts: minTaskMember may name it
  add(j.allocated, snap.pods[pod].request);
  if (auto* q = queue_of(j)) add(q->allocated, snap.pods[pod].request);
  node_of_pod[pod] = node;
}

void Session::release(int pod, int node) {
  if (node >= 0) cluster.release(pod, node);
  Job& j = jobs[job_of_pod[pod]];
  --j.bound;
  --j.bound_by_task[snap.pods[pod].task_role];
  subtract(j.allocated, snap.pods[pod].request);
  if (auto* q = queue_of(j)) subtract(q->allocated, snap.pods[pod].request);
  node_of_pod[pod] = -1;
}

void Session::hold(int pod, int node) {
  cluster.assume(pod, node);
  Job& j = jobs[job_of_pod[pod]];
  ++j.pipelined;
  if (auto* q = queue_of(j)) add(q->allocated, snap.pods[pod].request);
  node_of_pod[pod] = node;
}

void Session::unhold(int pod, int node) {
  cluster.release(pod, node);
  Job& j = jobs[job_of_pod[pod]];
  --j.pipelined;
  if (auto* q = queue_of(j)) subtract(q->allocated, snap.pods[pod].request);
  node_of_pod[pod] = -1;
}

int Session::need_of(const Job& j) const {
  if (!need_fn) return j.pending.empty() ? 0 : 1;
  return need_fn(j);
}

#define WEFT_REGISTER(method, list, sw, Fn) \
  void Session::method(const PluginOption& p, Fn fn) {   \
    if (p.enabled(sw)) list.push_back({p.tier, std::move(fn)}); \
  }

WEFT_REGISTER(add_job_order, job_order_, Switch::JobOrder, JobCompareFn)
WEFT_REGISTER(add_queue_order, queue_order_, Switch::QueueOrder, QueueCompareFn)
WEFT_REGISTER(add_victim_queue_order, victim_queue_order_, Switch::QueueOrder, QueueCompareFn)
WEFT_REGISTER(add_task_order, task_order_, Switch::TaskOrder, TaskCompareFn)
WEFT_REGISTER(add_preemptable, preemptable_, Switch::Preemptable, VictimsFn)
WEFT_REGISTER(add_reclaimable, reclaimable_, Switch::Reclaimable, VictimsFn)
WEFT_REGISTER(add_overused, overused_, Switch::Overused, QueueFn)
WEFT_REGISTER(add_allocatable, allocatable_, Switch::Allocatable, QueueTaskFn)
WEFT_REGISTER(add_preemptive, preemptive_, Switch::Preemptive, QueueTaskFn)
WEFT_REGISTER(add_job_enqueueable, enqueueable_, Switch::JobEnqueued, VoteFn)
WEFT_REGISTER(add_job_enqueued, enqueued_, Switch::JobEnqueued, JobEventFn)
WEFT_REGISTER(add_job_ready, ready_, Switch::JobReady, JobFn)
WEFT_REGISTER(add_job_pipelined, pipelined_, Switch::JobPipelined, VoteFn)
WEFT_REGISTER(add_job_starving, starving_, Switch::JobStarving, JobFn)
WEFT_REGISTER(add_hypernode_order, hypernode_order_, Switch::HyperNodeOrder,
              std::function<double(const Job&, const DomainRef&)>)
#undef WEFT_REGISTER

// Volcano registers job-valid callbacks regardless of switches; so do these two, which
// are weft's placement constraints (a job's IB cluster), not preferences.
void Session::add_job_valid(const PluginOption& p, std::function<std::optional<std::string>(const Job&)> fn) {
  valid_.push_back({p.tier, std::move(fn)});
}
void Session::add_domain_filter(const PluginOption& p, DomainFilterFn fn) {
  domain_filter_.push_back({p.tier, std::move(fn)});
}
void Session::add_job_domains(const PluginOption& p, JobDomainsFn fn) { job_domains_.push_back({p.tier, std::move(fn)}); }

void Session::add_predicate(const PluginOption& p, PredicateFn fn) {
  if (p.enabled(Switch::Predicate)) node_callbacks.predicates.push_back(std::move(fn));
}
void Session::add_dynamic_predicate(const PluginOption& p, PredicateFn fn) {
  if (p.enabled(Switch::Predicate)) node_callbacks.dynamic_predicates.push_back(std::move(fn));
}
void Session::add_static_node_order(const PluginOption& p, StaticScoreFn fn) {
  if (p.enabled(Switch::NodeOrder)) node_callbacks.static_scores.push_back(std::move(fn));
}
void Session::add_batch_node_order(const PluginOption& p, BatchScoreFn fn) {
  if (p.enabled(Switch::NodeOrder)) node_callbacks.batch_scores.push_back(std::move(fn));
}

bool Session::job_before(const Job& a, const Job& b) const {
  for (const auto& e : job_order_)
    if (int c = e.fn(a, b); c != 0) return c < 0;
  return a.key < b.key;
}

bool Session::queue_before(const QueueAccount& a, const QueueAccount& b) const {
  for (const auto& e : queue_order_)
    if (int c = e.fn(a, b); c != 0) return c < 0;
  return a.info->name < b.info->name;
}

bool Session::victim_queue_before(const QueueAccount& a, const QueueAccount& b) const {
  for (const auto& e : victim_queue_order_)
    if (int c = e.fn(a, b); c != 0) return c < 0;
  return queue_before(b, a);
}

bool Session::task_before(int a, int b) const {
  for (const auto& e : task_order_)
    if (int c = e.fn(a, b); c != 0) return c < 0;
  const auto &pa = snap.pods[a], &pb = snap.pods[b];
  return pa.key < pb.key;
}

std::vector<int> Session::preemptable(int preemptor, const std::vector<int>& candidates) const {
  return intersect_by_tier(flatten(preemptable_), preemptor, candidates);
}

std::vector<int> Session::reclaimable(int preemptor, const std::vector<int>& candidates) const {
  return intersect_by_tier(flatten(reclaimable_), preemptor, candidates);
}

bool Session::overused(const QueueAccount& q) const {
  return std::any_of(overused_.begin(), overused_.end(), [&](const auto& e) { return e.fn(q); });
}

bool Session::allocatable(const QueueAccount& q, int pod) const {
  return std::all_of(allocatable_.begin(), allocatable_.end(), [&](const auto& e) { return e.fn(q, pod); });
}

bool Session::preemptive(const QueueAccount& q, int pod) const {
  return std::all_of(preemptive_.begin(), preemptive_.end(), [&](const auto& e) { return e.fn(q, pod); });
}

bool Session::job_enqueueable(const Job& j, std::string* why) const { return vote_by_tier(enqueueable_, j, why); }

void Session::job_enqueued(const Job& j) const {
  for (const auto& e : enqueued_) e.fn(j);
}

bool Session::job_ready(const Job& j) const {
  return std::all_of(ready_.begin(), ready_.end(), [&](const auto& e) { return e.fn(j); });
}

bool Session::job_pipelined(const Job& j) const { return vote_by_tier(pipelined_, j, nullptr); }

// Volcano: the first tier with a starving callback decides (all must agree); none: not starving.
bool Session::job_starving(const Job& j) const {
  if (starving_.empty()) return false;
  int tier = starving_.front().tier;
  for (const auto& e : starving_)
    if (e.tier == tier && !e.fn(j)) return false;
  return true;
}

std::optional<std::string> Session::job_valid(const Job& j) const {
  for (const auto& e : valid_)
    if (auto why = e.fn(j)) return why;
  return std::nullopt;
}

bool Session::domain_allowed(const Job& j, const Domain& d) const {
  return std::all_of(domain_filter_.begin(), domain_filter_.end(), [&](const auto& e) { return e.fn(j, d); });
}

std::optional<std::vector<DomainRef>> Session::extra_domains(const Job& j) const {
  for (const auto& e : job_domains_)
    if (auto d = e.fn(j)) return d;
  return std::nullopt;
}

double Session::hypernode_score(const Job& j, const DomainRef& d) const {
  double s = 0;
  for (const auto& e : hypernode_order_) s += e.fn(j, d);
  return s;
}

}  // namespace weft::scheduler
