// Opening a session: jobs and queue accounting from the snapshot, then every configured
// plugin registers its callbacks (in tier order).
#include <algorithm>
#include <unordered_map>

#include "scheduler/core/framework/session.h"
#include "scheduler/core/framework/subgroups.h"
#include "scheduler/core/plugins/registry.h"

namespace weft::scheduler {
namespace {

bool ours(const PodInfo& p, const SessionOptions& o) {
  return o.scheduler_names.empty() || o.scheduler_names.count(p.scheduler_name) ||
         (p.scheduler_name.empty() && o.scheduler_names.count("default-scheduler"));
}

// The job a pod belongs to: its group, or the root CompositePodGroup above its group (a
// composite's whole tree is placed together), or the pod itself. A missing ancestor ends
// the walk at its key (the job waits for it, as kube-scheduler holds an incomplete tree);
// a cycle of parents ends at the first composite met twice.
const std::string& job_key_of(const Snapshot& snap, const PodInfo& pod) {
  if (pod.group.empty()) return pod.key;
  const std::string* key = &pod.group.str();
  std::vector<const std::string*> seen;
  for (auto g = snap.podgroups.find(*key); g != snap.podgroups.end() && !g->second.parent.empty();
       g = snap.podgroups.find(*key)) {
    if (std::find_if(seen.begin(), seen.end(), [&](const std::string* k) { return *k == *key; }) != seen.end()) break;
    seen.push_back(key);
    key = &g->second.parent;
  }
  return *key;
}

Job new_job(Session& s, const PodInfo& pod, const std::string& key) {
  Job j;
  j.key = key;
  j.priority = pod.priority;
  if (!pod.group.empty()) {
    auto g = s.snap.podgroups.find(key);
    const bool composite = key != pod.group.str();
    if (g == s.snap.podgroups.end()) {   // as kube-scheduler, a pod waits for the group it names
      j.blocked = std::string(composite ? "CompositePodGroup " : "PodGroup ") + key + " not found";
      j.blocked_reason = "PodGroupNotFound";
    } else if (!g->second.parent.empty()) {   // job_key_of stopped inside a cycle
      j.blocked = "CompositePodGroup " + key + " is its own ancestor (parentCompositePodGroupName forms a cycle)";
      j.blocked_reason = "PodGroupNotFound";
    } else {
      j.group = &g->second;
      j.queue = g->second.queue;
      j.min_member = g->second.min_member;
      j.priority = g->second.priority;
      j.preemptable = g->second.preemptable.value_or(false);
      j.phase = g->second.phase();
      if (j.phase == "Completed") j.phase = "Running";
      if (g->second.native) j.phase = "Inqueue";   // no enqueue step: kube-scheduler tries a group at once
    }
  } else {
    j.phase = pod.bound() ? "Running" : "Pending";
  }
  auto q = s.snap.queues.find(j.queue);
  if (q == s.snap.queues.end()) {
    j.blocked = "queue '" + j.queue + "' not found";
    j.blocked_reason = "QueueNotFound";
  } else if (!q->second.open && j.blocked.empty()) {
    j.blocked = "queue '" + j.queue + "' is closed";
    j.blocked_reason = "QueueClosed";
  }
  return j;
}

void build_jobs(Session& s) {
  const Snapshot& snap = s.snap;
  std::unordered_map<std::string, int> index;
  // A job per pod without a group and per PodGroup (more only for groups not found):
  // room reserved up front, so 100,000 jobs are not moved as the vector grows.
  const size_t jobs = snap.podgroups.size() +
                      std::count_if(snap.pods.begin(), snap.pods.end(), [](const PodInfo& p) { return p.group.empty(); });
  index.reserve(jobs);
  s.jobs.reserve(jobs);
  s.job_of_pod.assign(snap.pods.size(), -1);
  s.node_of_pod.assign(snap.pods.size(), -1);
  s.pipelined_pod.assign(snap.pods.size(), 0);
  for (const auto& [name, q] : snap.queues) s.queues[name].info = &q;
  for (size_t p = 0; p < snap.pods.size(); ++p) {
    const PodInfo& pod = snap.pods[p];
    const std::string& key = job_key_of(snap, pod);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, static_cast<int>(s.jobs.size())).first;
      s.jobs.push_back(new_job(s, pod, key));
    }
    Job& j = s.jobs[it->second];
    s.job_of_pod[p] = it->second;
    j.pods.push_back(static_cast<int>(p));
    if (pod.phase == "Succeeded") ++j.succeeded;
    else if (pod.phase == "Failed") ++j.failed;
    else if (!pod.node.empty()) {
      s.node_of_pod[p] = s.node_index(pod.node);   // a terminating pod holds its node until it is gone
      if (!pod.running_member()) continue;
      ++j.bound;
      ++j.bound_by_task[pod.task_role];   // "" is the role of pods without volcano.sh/task-spec
      add(j.allocated, pod.request);
      if (auto* qa = s.queue_of(j)) add(qa->allocated, pod.request);
    } else if (ours(pod, s.opts) && !pod.terminating) {
      j.pending.push_back(static_cast<int>(p));
      if (!pod.best_effort()) j.has_nonbest_effort_pending = true;
    }
  }
  for (auto& j : s.jobs) {
    build_subgroups(s, j);
    if (j.bound > 0 && j.phase == "Pending") j.phase = "Running";
    if (j.bound > 0 && j.group && j.group->native) j.phase = "Running";
    j.enqueued = j.phase != "Pending";
    if (auto* qa = s.queue_of(j)) {
      add(qa->request, j.allocated);
      for (int p : j.pending) add(qa->request, snap.pods[p].request);
      if (j.phase == "Inqueue" && j.bound == 0 && j.group && j.group->has_min_resources)
        add(qa->inqueue, j.group->min_resources);
    }
  }
}

}  // namespace

bool open_plugin(Session& ssn, const PluginOption& option) {
  const PluginFactory* factory = find_plugin(option.name);
  if (!factory) return false;
  auto plugin = factory->make(option, nullptr);
  if (!plugin) return false;
  (*plugin)->open(ssn);
  ssn.own(std::move(*plugin));
  return true;
}

void open_session(Session& ssn) {
  build_jobs(ssn);
  std::vector<PluginOption> options = ssn.config.plugins;
  for (const auto& f : plugin_factories())   // weft's own constraints, also for a Config built in code
    if (f.implicit && !ssn.config.has(f.name)) options.emplace_back(f.name, options.empty() ? 0 : options.back().tier);
  for (const auto& option : options) open_plugin(ssn, option);   // unknown names: parse_config refuses them
  // Pending pods in task order (priority plugin: higher first; then by name).
  for (auto& j : ssn.jobs)
    std::sort(j.pending.begin(), j.pending.end(), [&](int a, int b) { return ssn.task_before(a, b); });
}

}  // namespace weft::scheduler
