// Control-plane and member objects for the global dispatch tests, at real sizes
// (GPU nodes of 192 cpu / 2 TiB / 8 nvidia.com/gpu).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/global/core/dispatch.h"

namespace weft::scheduler::global::testing {

using nlohmann::json;

json cluster(const std::string& name, bool ready = true);
json gpu_node(const std::string& member, const std::string& name, int gpus = 8);
// A Running pod of a Volcano Job on a member's node.
json job_pod(const std::string& member, const std::string& ns, const std::string& job, int index,
             const std::string& node, int gpus);
json queue(const std::string& name, double weight, int gpu_capability = 0);
json priority_class(const std::string& name, int value);
json vcjob(const std::string& ns, const std::string& name, const std::string& queue, int replicas, int gpus_per_pod,
           const std::string& priority_class = "");
// Suspended unless `cluster` is given (then dispatched there with all replicas).
json binding(const std::string& ns, const std::string& job, int replicas, const std::string& created,
             const std::string& cluster = "");

// "2026-01-01T00:MM:SSZ", `s` seconds after the first.
std::string at_second(int s);
// A Cluster and `nodes` GPU nodes of that member.
void add_member(std::vector<json>& o, const std::string& name, int nodes, bool ready = true);
// A Volcano Job of `replicas` 8-GPU pods and its binding, suspended unless `cluster` is given.
void add_job(std::vector<json>& o, const std::string& name, const std::string& queue, int replicas, int created,
             const std::string& cluster = "");

// Adds every object (failing the test on an error) and dispatches.
GlobalDecisions decide(const std::vector<json>& objects);
const BindingDecision& find(const GlobalDecisions& d, const std::string& key);
int64_t allocated_gpus(const GlobalDecisions& d, const std::string& queue);

}  // namespace weft::scheduler::global::testing
