#include "tests/global/global_objects.h"

#include <cstdio>

#include <gtest/gtest.h>

namespace weft::scheduler::global::testing {

json cluster(const std::string& name, bool ready) {
  return {{"apiVersion", "cluster.karmada.io/v1alpha1"}, {"kind", "Cluster"}, {"metadata", {{"name", name}}},
          {"spec", {{"syncMode", "Push"}}},
          {"status", {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"},
                                       {"reason", ready ? "ClusterReady" : "ClusterNotReachable"}}}}}}};
}

json gpu_node(const std::string& member, const std::string& name, int gpus) {
  return {{"apiVersion", "v1"}, {"kind", "Node"},
          {"metadata", {{"name", name}, {"annotations", {{"weft.dev/member-cluster", member}}}}},
          {"status", {{"allocatable", {{"cpu", "192"}, {"memory", "2Ti"}, {"nvidia.com/gpu", std::to_string(gpus)},
                                       {"pods", "110"}}},
                      {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

json job_pod(const std::string& member, const std::string& ns, const std::string& job, int index,
             const std::string& node, int gpus) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"},
          {"metadata", {{"name", job + "-worker-" + std::to_string(index)}, {"namespace", ns},
                        {"labels", {{"volcano.sh/job-name", job}, {"volcano.sh/task-spec", "worker"}}},
                        {"annotations", {{"weft.dev/member-cluster", member}}}}},
          {"spec", {{"nodeName", node},
                    {"containers", {{{"name", "w"}, {"resources", {{"requests", {{"cpu", "8"},
                                                                               {"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}},
          {"status", {{"phase", "Running"}}}};
}

json queue(const std::string& name, double weight, int gpu_capability) {
  json q = {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "Queue"}, {"metadata", {{"name", name}}},
            {"spec", {{"weight", weight}}}};
  if (gpu_capability > 0) q["spec"]["capability"] = {{"nvidia.com/gpu", std::to_string(gpu_capability)}};
  return q;
}

json priority_class(const std::string& name, int value) {
  return {{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"}, {"metadata", {{"name", name}}},
          {"value", value}};
}

json vcjob(const std::string& ns, const std::string& name, const std::string& queue, int replicas, int gpus_per_pod,
           const std::string& priority_class) {
  json j = {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"spec", {{"queue", queue}, {"minAvailable", replicas},
                      {"tasks", {{{"name", "worker"}, {"replicas", replicas},
                                  {"template", {{"spec", {{"containers", {{{"name", "w"}, {"image", "train"},
                                      {"resources", {{"requests", {{"cpu", "8"}, {"memory", "64Gi"},
                                                                   {"nvidia.com/gpu", std::to_string(gpus_per_pod)}}}}}}}}}}}}}}}}}};
  if (!priority_class.empty()) j["spec"]["priorityClassName"] = priority_class;
  return j;
}

json binding(const std::string& ns, const std::string& job, int replicas, const std::string& created,
             const std::string& cluster) {
  json b = {{"apiVersion", "work.karmada.io/v1alpha2"}, {"kind", "ResourceBinding"},
            {"metadata", {{"name", job + "-job"}, {"namespace", ns}, {"creationTimestamp", created}}},
            {"spec", {{"resource", {{"apiVersion", "batch.volcano.sh/v1alpha1"}, {"kind", "Job"}, {"name", job},
                                    {"namespace", ns}}},
                      {"replicas", replicas}, {"suspension", {{"scheduling", cluster.empty()}}}}}};
  if (!cluster.empty()) b["spec"]["clusters"] = {{{"name", cluster}, {"replicas", replicas}}};
  return b;
}

std::string at_second(int s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "2026-01-01T00:%02d:%02dZ", s / 60, s % 60);
  return buf;
}

void add_member(std::vector<json>& o, const std::string& name, int nodes, bool ready) {
  o.push_back(cluster(name, ready));
  for (int i = 0; i < nodes; ++i) o.push_back(gpu_node(name, name + "-n" + std::to_string(i)));
}

void add_job(std::vector<json>& o, const std::string& name, const std::string& queue, int replicas, int created,
             const std::string& cluster) {
  o.push_back(vcjob("ml", name, queue, replicas, 8));
  o.push_back(binding("ml", name, replicas, at_second(created), cluster));
}

GlobalDecisions decide(const std::vector<json>& objects) {
  GlobalBuilder builder;
  for (size_t i = 0; i < objects.size(); ++i) {
    auto st = builder.add(objects[i], "object " + std::to_string(i));
    EXPECT_TRUE(st) << st.message();
  }
  auto state = builder.build();
  EXPECT_TRUE(state) << state.message();
  if (!state) return {};
  return dispatch(*state);
}

const BindingDecision& find(const GlobalDecisions& d, const std::string& key) {
  for (const auto& b : d.bindings)
    if (b.key == key) return b;
  ADD_FAILURE() << "no decision for " << key;
  static const BindingDecision none;
  return none;
}

int64_t allocated_gpus(const GlobalDecisions& d, const std::string& queue) {
  for (const auto& q : d.queues)
    if (q.name == queue) {
      auto it = q.allocated.find("nvidia.com/gpu");
      return it == q.allocated.end() ? 0 : it->second / 1000;
    }
  return -1;
}

}  // namespace weft::scheduler::global::testing
