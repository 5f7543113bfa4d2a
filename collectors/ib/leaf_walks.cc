#include "collectors/ib/leaf_walks.h"

#include <optional>

namespace weft::ib {

LeafWalk LeafWalks::get(uint64_t leaf, const std::function<LeafWalk()>& walk, bool* walked) {
  std::promise<LeafWalk> mine;
  std::optional<std::shared_future<LeafWalk>> theirs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = walks_.find(leaf);
    if (it != walks_.end()) theirs = it->second;
    else walks_.emplace(leaf, mine.get_future().share());
  }
  if (walked) *walked = !theirs;
  if (theirs) return theirs->get();   // waits outside the lock for the port walking it
  try {
    LeafWalk w = walk();
    mine.set_value(w);
    return w;
  } catch (...) {
    mine.set_exception(std::current_exception());
    throw;
  }
}

}  // namespace weft::ib
