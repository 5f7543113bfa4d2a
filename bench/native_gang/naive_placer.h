// The baseline of bench/native_gang: a naive gang placer in the bench process, through the
// same API as weft-scheduler run. It lists the nodes and bound pods once (before the clock,
// as a scheduler's caches are synced before), polls the pending pods, and places each job
// whose pods are all there by next fit: the first domain of the job's topology key (then of
// each group's) where every pod fits, no scoring, no rank order; bindings `threads` at a time.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/native_gang/api_run.h"
#include "bench/native_gang/cases.h"
#include "kube/client/client.h"
#include "kube/quantity.h"

namespace weft::bench {

// A node as the bench's placers see it: its labels and the room its bound pods leave.
struct NodeRoom {
  std::string name;
  std::map<std::string, std::string> labels;
  kube::ResourceList free;
};
// Lists the nodes and the bound pods into `nodes`; on_bound (when set) sees each bound pod.
Status read_rooms(kube::Client& client, std::vector<NodeRoom>& nodes,
                  const std::function<void(const nlohmann::json& pod, const NodeRoom& node)>& on_bound);

class NaivePlacer : public Placer {
 public:
  NaivePlacer(kube::Client& client, const Case& c, int threads);
  Status sync() override;                                // nodes and bound pods
  // Until every job is bound, a job cannot be placed, or the deadline; the error names why.
  Status run(std::chrono::steady_clock::time_point deadline) override;
  int unplaceable() const { return unplaceable_; }

 private:
  using Node = NodeRoom;
  using Placement = std::vector<std::pair<std::string, size_t>>;   // pod -> node index
  using Undo = std::vector<std::pair<size_t, kube::ResourceList>>;  // node index -> its free before

  bool place_job(const JobSpec& job, Placement& out);
  bool place_group(const GroupSpec& g, const std::vector<size_t>& nodes, Placement& out, Undo& undo);
  std::vector<std::vector<size_t>> domains(const std::string& key, const std::vector<size_t>& nodes) const;
  Status bind(const Placement& placement);

  kube::Client& client_;
  const Case& case_;
  int threads_;
  std::vector<Node> nodes_;
  std::map<std::string, kube::ResourceList> requests_;   // pending pod -> its request
  int unplaceable_ = 0;
};

// A pod's request: its containers' requests summed, and one "pods".
kube::ResourceList pod_request(const nlohmann::json& pod);

}  // namespace weft::bench
