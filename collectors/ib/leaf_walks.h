// The switches one hop above each first-hop switch, walked once per probe: ports of one
// node on the same leaf (a node's storage HCAs on one storage leaf, two ports of a
// dual-port HCA) share one walk instead of each asking every port of that leaf.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace weft::ib {

struct LeafWalk {
  std::vector<std::string> uplinks;   // switch GUIDs above the leaf, sorted
  std::string reason;                 // why empty
};

// Shared by the ports of one probe (each in its own thread).
class LeafWalks {
 public:
  // The walk of `leaf`: runs `walk` when no port has claimed this leaf yet, else waits
  // for the port that did. `walked` tells the caller which happened.
  LeafWalk get(uint64_t leaf, const std::function<LeafWalk()>& walk, bool* walked = nullptr);

 private:
  std::mutex mu_;
  std::map<uint64_t, std::shared_future<LeafWalk>> walks_;
};

}  // namespace weft::ib
