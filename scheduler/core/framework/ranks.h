// Ranks: where a pod sits in its job's communication order, from the labels the
// controllers write: batch.kubernetes.io/job-completion-index (Job; JobSet's pods add
// jobset.sigs.k8s.io/job-index as the outer index), volcano.sh/task-index (Volcano), or
// the label a PodGroup names in its weft.dev/pod-index-label annotation (as Kueue's
// podIndexLabel). Pods of a ranked gang go in rank order onto nodes ordered so that
// consecutive ranks share the lowest domain (whole leaves, roomiest first).
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

using Rank = std::pair<long long, long long>;   // (outer index, index)

std::optional<Rank> rank_of(const PodInfo& pod, const PodGroupInfo* group);
// Every pending pod of the job has a rank.
bool ranked(const Session& ssn, const Job& job);
// `nodes` (null: all) ordered domain by domain from the top tier down, the domain with
// the most room for `pod`'s shape first at each tier: filled in this order, consecutive
// ranks cross as few leaves as the domain sizes allow.
std::vector<int> rank_node_order(Session& ssn, int pod, const std::vector<int>* nodes);
// Adjacent ranks of the job's bound pods (by the Snapshot's nodes) whose nodes are in
// different lowest-tier domains.
int rank_pairs_crossing(const Topology& topo, const std::vector<std::pair<Rank, int>>& rank_and_node);

}  // namespace weft::scheduler
