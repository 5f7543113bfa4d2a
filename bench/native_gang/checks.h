// What bench/native_gang checks from the API after each run: every pod bound, no node over
// its allocatable, every group inside one domain of its topology key and every composite
// inside one of its own, and (for ranked pods) adjacent ranks that cross a leaf.
#pragma once

#include <functional>
#include <string>

#include "bench/native_gang/cases.h"
#include "kube/client/client.h"

namespace weft::bench {

struct Verdict {
  int pods = 0, bound = 0;
  int overfull_nodes = 0;
  int groups_split = 0, jobs_split = 0;   // spread over more than one domain of their key
  int rank_pairs_across_leaf = -1;        // -1: the case has no ranks
  int leaves_used = 0;                    // so at least leaves_used - 1 pairs must cross
  bool has_groups = false;                // the case has groups or composites to keep together
  std::string rules;                      // the case's own rules: what held, or "FAIL: ..." (see rules_ok)
  bool rules_ok = true;
  std::string error;
  bool ok() const {
    return error.empty() && bound == pods && !overfull_nodes && !groups_split && !jobs_split && rules_ok;
  }
  std::string summary() const;
};

// `more` (when set) adds a case's own checks on the same lists (nodes; pods of every namespace).
using MoreChecks = std::function<void(const kube::ObjectList& nodes, const kube::ObjectList& pods, Verdict& v)>;
Verdict check_placement(kube::Client& client, const Case& c, const MoreChecks& more = {});

}  // namespace weft::bench
