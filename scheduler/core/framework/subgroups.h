// Sub-groups of a job: Volcano's subGroupPolicy (pods split by a label selector and the
// values of matchLabelKeys, subGroupSize each, minSubGroups of them at once) and the child
// PodGroups of a Kubernetes CompositePodGroup tree (minCount each; each composite needs
// minGroupCount of its children, a child composite counting when enough of its own are).
#pragma once

#include <optional>
#include <string>

#include "scheduler/core/framework/session.h"

namespace weft::scheduler {

// Fills job.subgroups from its group's rules (and job.scopes for a composite tree); a
// composite's min_member becomes the pods its cheapest minGroupCount children need,
// recursively (any one child for a basic composite).
void build_subgroups(Session& ssn, Job& job);
// Whether a composite's scope has the children it needs ready (job.scopes[scope]).
bool scope_ready(const Session& ssn, const Job& job, int scope, bool with_pipelined);
// Pods of the sub-group running or placed this cycle (and pipelined ones when asked).
int subgroup_occupied(const Session& ssn, const SubGroup& g, bool with_pipelined);
// Every rule has at least min_groups sub-groups holding their size (a composite: its root scope is ready).
bool subgroups_ready(const Session& ssn, const Job& job, bool with_pipelined);
// Why the job cannot start yet (too few sub-groups could ever fill), else nullopt.
std::optional<std::string> subgroups_invalid(const Session& ssn, const Job& job);

}  // namespace weft::scheduler
