// The framework: one session over a snapshot. Plugins register callbacks when the
// session opens; actions run in the configured order and call the callbacks through the
// invokers below, which combine plugins the way Volcano's framework does (tier by tier;
// a switch set to false means the callback was never registered).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduler/core/config.h"
#include "scheduler/core/framework/cluster_state.h"
#include "scheduler/core/framework/job.h"
#include "scheduler/core/framework/plugin_option.h"
#include "scheduler/core/session.h"
#include "scheduler/core/topology.h"

namespace weft::scheduler {

class Session;

// A plugin instance lives for one session; open() registers its callbacks.
class Plugin {
 public:
  virtual ~Plugin() = default;
  virtual void open(Session& ssn) = 0;
  virtual void close(Session&) {}   // Volcano's OnSessionClose: after the actions, before statuses
};

// A node set a job may be confined to: a HyperNode (tier >= 1) or an IB cluster (tier 0).
struct DomainRef {
  std::string name;
  int tier = 0;
  const std::vector<int>* nodes = nullptr;   // ascending node indices
};

using JobCompareFn = std::function<int(const Job&, const Job&)>;
using QueueCompareFn = std::function<int(const QueueAccount&, const QueueAccount&)>;
using TaskCompareFn = std::function<int(int, int)>;
using VictimsFn = std::function<std::optional<std::vector<int>>(int preemptor, const std::vector<int>& candidates)>;
using QueueFn = std::function<bool(const QueueAccount&)>;
using QueueTaskFn = std::function<bool(const QueueAccount&, int pod)>;
using VoteFn = std::function<int(const Job&, std::string* why)>;   // -1 reject (why set), 0 abstain, 1 permit
using JobFn = std::function<bool(const Job&)>;
using JobEventFn = std::function<void(const Job&)>;
using DomainFilterFn = std::function<bool(const Job&, const Domain&)>;
using JobDomainsFn = std::function<std::optional<std::vector<DomainRef>>(const Job&)>;   // nullopt: not confined

class Session {
 public:
  Session(const Snapshot& snapshot, const Config& config, const SessionOptions& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const Snapshot& snap;
  const Config& config;
  const SessionOptions& opts;
  NodeCallbacks node_callbacks;          // before `cluster`: it keeps a reference
  ClusterState cluster;
  std::vector<Job> jobs;
  std::vector<int> job_of_pod;           // per pod: job index, -1 when none
  std::vector<int> node_of_pod;          // per pod: node index, -1 when not bound (updated by decisions)
  std::vector<char> pipelined_pod;       // per pod: room held by a committed pipeline; not placed again
  std::map<std::string, QueueAccount> queues;
  Quantities total;                      // capacity work can use (proportion / capacity)
  Decisions out;

  const Topology& topo();
  int node_index(const std::string& name) const;
  QueueAccount* queue_of(const Job& j);
  std::string task_role(int pod) const;  // the pod's task name within its job ("" when none)

  // Books a placement (node resources, job and queue accounting) or takes it back.
  void assume(int pod, int node);
  void release(int pod, int node);
  // Holds room on the node for a pod that binds later (pipelined): node and queue, not the job's running count.
  void hold(int pod, int node);
  void unhold(int pod, int node);

  // --- Registration (from Plugin::open). Each is dropped when the plugin's switch is off.
  void add_job_order(const PluginOption& p, JobCompareFn fn);
  void add_queue_order(const PluginOption& p, QueueCompareFn fn);
  void add_victim_queue_order(const PluginOption& p, QueueCompareFn fn);
  void add_task_order(const PluginOption& p, TaskCompareFn fn);
  void add_predicate(const PluginOption& p, PredicateFn fn);
  void add_dynamic_predicate(const PluginOption& p, PredicateFn fn);   // sees this cycle's placements
  void add_static_node_order(const PluginOption& p, StaticScoreFn fn);
  void add_batch_node_order(const PluginOption& p, BatchScoreFn fn);
  void add_preemptable(const PluginOption& p, VictimsFn fn);
  void add_reclaimable(const PluginOption& p, VictimsFn fn);
  void add_overused(const PluginOption& p, QueueFn fn);
  void add_allocatable(const PluginOption& p, QueueTaskFn fn);
  void add_preemptive(const PluginOption& p, QueueTaskFn fn);
  void add_job_enqueueable(const PluginOption& p, VoteFn fn);
  void add_job_enqueued(const PluginOption& p, JobEventFn fn);
  void add_job_ready(const PluginOption& p, JobFn fn);
  void add_job_pipelined(const PluginOption& p, VoteFn fn);
  void add_job_starving(const PluginOption& p, JobFn fn);
  void add_job_valid(const PluginOption& p, std::function<std::optional<std::string>(const Job&)> fn);
  void add_domain_filter(const PluginOption& p, DomainFilterFn fn);
  void add_job_domains(const PluginOption& p, JobDomainsFn fn);
  void add_hypernode_order(const PluginOption& p, std::function<double(const Job&, const DomainRef&)> fn);

  // --- Invocation (from actions).
  bool job_before(const Job& a, const Job& b) const;
  bool queue_before(const QueueAccount& a, const QueueAccount& b) const;
  // Order of victim queues: the registered victim order, else the reverse of queue order.
  bool victim_queue_before(const QueueAccount& a, const QueueAccount& b) const;
  bool task_before(int a, int b) const;
  std::vector<int> preemptable(int preemptor, const std::vector<int>& candidates) const;
  std::vector<int> reclaimable(int preemptor, const std::vector<int>& candidates) const;
  bool overused(const QueueAccount& q) const;
  bool allocatable(const QueueAccount& q, int pod) const;
  bool preemptive(const QueueAccount& q, int pod) const;
  bool job_enqueueable(const Job& j, std::string* why) const;
  void job_enqueued(const Job& j) const;
  bool job_ready(const Job& j) const;
  bool job_pipelined(const Job& j) const;
  bool job_starving(const Job& j) const;
  std::optional<std::string> job_valid(const Job& j) const;
  bool domain_allowed(const Job& j, const Domain& d) const;
  // Domains a plugin confines the job to (possibly none at all); nullopt when no plugin does.
  std::optional<std::vector<DomainRef>> extra_domains(const Job& j) const;
  double hypernode_score(const Job& j, const DomainRef& d) const;
  bool has_hypernode_order() const { return !hypernode_order_.empty(); }
  bool has_job_domains() const { return !job_domains_.empty(); }

  // Pods still to place at once for the job to be ready (gang: minMember and minTaskMember).
  int need_of(const Job& j) const;
  // Set by the gang plugin; without it every pod is its own unit.
  std::function<int(const Job&)> need_fn;
  // Set while gangpreempt / gangreclaim plan with allowWholeBundle: the gang plugin then
  // lets a lower-priority victim gang go below its minMember (it is evicted whole).
  bool whole_gang_victims = false;
  // Domains per topology key (domains.h: key_domains), built on first use.
  std::map<std::string, std::vector<Domain>> key_domain_cache;

  void own(std::unique_ptr<Plugin> plugin) { plugins_.push_back(std::move(plugin)); }
  void close_plugins() {
    for (auto& p : plugins_) p->close(*this);
  }

 private:
  template <class F>
  struct Entry {
    int tier;
    F fn;
  };
  std::unique_ptr<Topology> topology_;
  std::unordered_map<std::string_view, int> node_by_name_;   // into snap.nodes
  std::vector<std::unique_ptr<Plugin>> plugins_;
  std::vector<Entry<JobCompareFn>> job_order_;
  std::vector<Entry<QueueCompareFn>> queue_order_, victim_queue_order_;
  std::vector<Entry<TaskCompareFn>> task_order_;
  std::vector<Entry<VictimsFn>> preemptable_, reclaimable_;
  std::vector<Entry<QueueFn>> overused_;
  std::vector<Entry<QueueTaskFn>> allocatable_, preemptive_;
  std::vector<Entry<VoteFn>> enqueueable_, pipelined_;
  std::vector<Entry<JobEventFn>> enqueued_;
  std::vector<Entry<JobFn>> ready_, starving_;
  std::vector<Entry<std::function<std::optional<std::string>(const Job&)>>> valid_;
  std::vector<Entry<DomainFilterFn>> domain_filter_;
  std::vector<Entry<JobDomainsFn>> job_domains_;
  std::vector<Entry<std::function<double(const Job&, const DomainRef&)>>> hypernode_order_;
};

// Opens a session: jobs and queues from the snapshot, then every configured plugin.
void open_session(Session& ssn);
// Makes the plugin `option` names and lets it register its callbacks on the session (which
// then owns it); false for a name no factory has or arguments that do not parse.
bool open_plugin(Session& ssn, const PluginOption& option);
// PodGroup statuses, conditions and events at the end of the session.
void write_statuses(Session& ssn);

}  // namespace weft::scheduler
