// Shared by preempt and reclaim: finding victims on nodes so a job's pods fit, planning a
// job's pods (tentatively, in a Statement) into one node set, and cheap bounds that cut
// hopeless plans. Victim order on a node: Volcano's (reverse task order inside a job,
// victim queue order across queues, reverse job order otherwise).
#pragma once

#include <string>
#include <vector>

#include "scheduler/core/framework/session.h"
#include "scheduler/core/framework/statement.h"

namespace weft::scheduler {

enum class EvictKind { Preempt, Reclaim };

class VictimFinder {
 public:
  VictimFinder(Session& ssn, const Job& job, EvictKind kind);

  // Whether the pod could be a victim at all (the action's filter and the plugins' vote).
  bool candidate(int pod);
  // Evicts (in `stmt`) what makes room for `task` on one node among `nodes` (nullptr:
  // every node) and pipelines the task there; -1 when no node can be made to fit. A node
  // with room needs no victims; otherwise the node whose victims have the lowest top
  // priority wins, then the one needing the fewest.
  int make_room(int task, const std::vector<int>* nodes, Statement& stmt);

 private:
  bool action_filter(int victim, int task) const;
  std::vector<int> victims_for(int task, int node);

  Session& ssn_;
  const Job& job_;
  EvictKind kind_;
  std::vector<std::vector<int>> on_node_;
};

// The job's `tasks` planned into `nodes` (nullptr: anywhere); false (statement discarded) when some task cannot be.
bool plan_in(Session& ssn, VictimFinder& finder, const std::vector<int>& tasks, const std::vector<int>* nodes,
             Statement& stmt);

// Per node, an upper bound on how many of `tasks` it could hold if every pod `finder`
// might take were gone. Domains whose bound is below the job's need are not planned.
std::vector<int64_t> room_bound(Session& ssn, VictimFinder& finder, const std::vector<int>& tasks);

// Preempt and reclaim for every starving job: its next `need` pods are planned (in one
// node set for a domain-bound job: the allowed domain needing the fewest victims, then
// the lowest top victim priority, the lower tier, the name) and committed when the job
// is then pipelined. The freed room is held for the rest of the cycle; the pods bind in
// a later cycle once the victims are gone.
//
// The gang actions (gangpreempt, gangreclaim) pass their arguments: at most
// `max_domains` domains planned per gang (0: all), and `whole_gangs`, where a victim gang
// of lower priority may be taken below its minMember and is then evicted whole inside the
// planned node set (Volcano's whole bundle), instead of giving only pods above minMember.
struct EvictOptions {
  int max_domains = 0;
  bool whole_gangs = false;
};
void evict_for_jobs(Session& ssn, EvictKind kind, EvictOptions options = {});

}  // namespace weft::scheduler
