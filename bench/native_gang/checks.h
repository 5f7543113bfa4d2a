// What bench/native_gang checks from the API after each run: every pod bound, no node over
// its allocatable, every group inside one domain of its topology key and every composite
// inside one of its own, and (for ranked pods) adjacent ranks that cross a leaf.
#pragma once

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
  std::string error;
  bool ok() const { return error.empty() && bound == pods && !overfull_nodes && !groups_split && !jobs_split; }
  std::string summary() const;
};

Verdict check_placement(kube::Client& client, const Case& c);

}  // namespace weft::bench
