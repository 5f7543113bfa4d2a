// Reads a list's items on two threads and hands what was read over in the items' order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::descheduler {

// A list's items as one thread finds them while others read those found already: the
// finder adds them in order, a reader waits for the ones it needs. Items are kept in
// blocks that never move, so adding one never disturbs a reader.
class FoundItems {
 public:
  // `most`: a bound on how many items there can be (the table of blocks is sized by it).
  explicit FoundItems(size_t most) : blocks_(most / kBlock + 1) {}

  // The finder's side: each item in order, then finish().
  void add(std::string_view item) {
    auto& block = blocks_.at(found_ / kBlock);
    if (!block) block = std::make_unique<std::string_view[]>(kBlock);
    block[found_ % kBlock] = item;
    // Published in batches: a reader waits for a run of items, not for each one.
    if (++found_ % kPublish == 0) publish(false);
  }
  void finish() { publish(true); }

  // Waits until `count` items are found or the list ended; how many are found then (at
  // least `count` unless the list ended before).
  size_t wait_for(size_t count) const {
    for (;;) {
      const size_t state = state_.load(std::memory_order_acquire);
      if ((state >> 1) >= count || (state & 1)) return state >> 1;
      state_.wait(state, std::memory_order_acquire);
    }
  }
  // An item wait_for said is found.
  std::string_view operator[](size_t i) const { return blocks_[i / kBlock][i % kBlock]; }

 private:
  static constexpr size_t kBlock = 4096;
  static constexpr size_t kPublish = 256;
  void publish(bool ended) {
    state_.store(found_ << 1 | (ended ? 1 : 0), std::memory_order_release);
    state_.notify_all();
  }

  std::vector<std::unique_ptr<std::string_view[]>> blocks_;
  size_t found_ = 0;                // the finder's own count
  std::atomic<size_t> state_{0};    // found and published << 1 | the list ended
};

// `read(reader, item)` makes a value of each item: this thread (with `mine`) and one beside
// it (with `beside`) claim runs of `run` items in order from a shared count, so the faster
// of the two reads more when the CPU is shared. A reader is used by one thread only: it
// need not be thread-safe, only what readers share. `take(index, value)` gets every value
// in the items' order, on this thread: a caller that adds the values as it takes them adds
// exactly what reading them all in order on one thread would.
//
// The items are found as they are read: the thread beside first runs `find(items)`, which
// adds each item to `items` in order; both threads read what is found meanwhile. Taking is
// serial, so it overlaps the reading too: this thread takes whatever is read next in order
// as soon as it is there and reads only when nothing is, while the thread beside keeps
// reading ahead. At most `window` items are held between their read and their take
// (rounded up to whole runs): the values live in a ring of that many slots.
template <class Find, class Reader, class Read, class Take>
void find_and_read_on_two_threads(FoundItems& items, Find&& find, Reader& mine, Reader& beside, Read&& read,
                                  Take&& take, size_t window = 4096, size_t run = 32) {
  using Value = std::invoke_result_t<Read&, Reader&, std::string_view>;
  run = std::max<size_t>(run, 1);
  const size_t ring = std::max<size_t>(1, (window + run - 1) / run);   // runs held at once
  std::vector<Value> values(ring * run);
  // Per ring slot, 1 + the run whose values it holds once they are all read (0: none yet).
  std::vector<std::atomic<size_t>> ready(ring);
  std::atomic<size_t> next{0};    // the next run to claim
  std::atomic<size_t> taken{0};   // runs taken so far: a run's slot is free once the run `ring` before it is
  // The end of run r's items: all found, or the list ended within it (then at most r * run).
  auto end_of = [&](size_t r) { return std::min(items.wait_for((r + 1) * run), (r + 1) * run); };
  // Reads run r; false: the list ended before it.
  auto read_run = [&](Reader& reader, size_t r) {
    const size_t end = end_of(r);
    if (end <= r * run) return false;
    const size_t slot = r % ring;
    for (size_t i = r * run; i < end; ++i) values[slot * run + i - r * run] = read(reader, items[i]);
    ready[slot].store(r + 1, std::memory_order_release);
    ready[slot].notify_all();
    return true;
  };
  std::jthread other([&] {
    find(items);
    items.finish();
    for (size_t r = next.fetch_add(1);; r = next.fetch_add(1)) {
      if (end_of(r) <= r * run) return;   // past the list's end (all is found by now)
      // Waits for its slot: the run `ring` before is taken (this thread holds no other claim).
      for (size_t t = taken.load(std::memory_order_acquire); r >= t + ring; t = taken.load(std::memory_order_acquire))
        taken.wait(t);
      if (!read_run(beside, r)) return;
    }
  });
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t claimed = kNone;   // a run this thread claimed but could not read yet
  for (size_t t = 0;;) {
    const size_t slot = t % ring;
    if (ready[slot].load(std::memory_order_acquire) == t + 1) {
      const size_t end = end_of(t);
      for (size_t i = t * run; i < end; ++i) take(i, std::move(values[slot * run + i - t * run]));
      taken.store(++t, std::memory_order_release);
      taken.notify_all();
      continue;
    }
    if (end_of(t) <= t * run) break;   // the list ended before run t: all is taken
    // Nothing to take yet: read a run if its slot is free, else wait for the thread beside
    // to finish the run to take next (it claimed it: this thread's claims are read in order).
    if (claimed == kNone) claimed = next.fetch_add(1);
    if (claimed < t + ring) {
      const size_t r = std::exchange(claimed, kNone);
      if (read_run(mine, r)) continue;
    }
    const size_t seen = ready[slot].load(std::memory_order_acquire);
    if (seen != t + 1) ready[slot].wait(seen, std::memory_order_acquire);
  }
}

// The same over items found already.
template <class Reader, class Read, class Take>
void read_on_two_threads(const std::vector<std::string_view>& list, Reader& mine, Reader& beside, Read&& read,
                         Take&& take, size_t window = 4096, size_t run = 32) {
  FoundItems items(list.size());
  auto find = [&](FoundItems& found) {
    for (std::string_view item : list) found.add(item);
  };
  find_and_read_on_two_threads(items, find, mine, beside, read, take, window, run);
}

}  // namespace weft::descheduler
