// Reads a list's items on two threads and hands what was read over in the items' order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace weft::descheduler {

// `read(reader, item)` makes a value of each item: this thread (with `mine`) and one beside
// it (with `beside`) claim runs of `run` items in order from a shared count, so the faster
// of the two reads more when the CPU is shared. A reader is used by one thread only: it
// need not be thread-safe, only what readers share. `take(index, value)` gets every value
// in the items' order, on this thread: a caller that adds the values as it takes them adds
// exactly what reading them all in order on one thread would.
//
// Taking is serial, so it overlaps the reading: this thread takes whatever is read next
// in order as soon as it is there and reads only when nothing is, while the thread beside
// keeps reading ahead. At most `window` items are held between their read and their take
// (rounded up to whole runs): the values live in a ring of that many slots.
template <class Reader, class Read, class Take>
void read_on_two_threads(const std::vector<std::string_view>& items, Reader& mine, Reader& beside, Read&& read,
                         Take&& take, size_t window = 4096, size_t run = 32) {
  using Value = std::invoke_result_t<Read&, Reader&, std::string_view>;
  if (items.empty()) return;
  run = std::max<size_t>(run, 1);
  const size_t runs = (items.size() + run - 1) / run;
  const size_t ring = std::max<size_t>(1, (window + run - 1) / run);   // runs held at once
  std::vector<Value> values(ring * run);
  // Per ring slot, 1 + the run whose values it holds once they are all read (0: none yet).
  std::vector<std::atomic<size_t>> ready(ring);
  std::atomic<size_t> next{0};    // the next run to claim
  std::atomic<size_t> taken{0};   // runs taken so far: a run's slot is free once the run `ring` before it is
  auto read_run = [&](Reader& reader, size_t r) {
    const size_t slot = r % ring;
    for (size_t i = r * run; i < std::min(items.size(), (r + 1) * run); ++i)
      values[slot * run + i - r * run] = read(reader, items[i]);
    ready[slot].store(r + 1, std::memory_order_release);
    ready[slot].notify_all();
  };
  std::jthread other([&] {
    for (size_t r = next.fetch_add(1); r < runs; r = next.fetch_add(1)) {
      // Waits for its slot: the run `ring` before is taken (this thread holds no other claim).
      for (size_t t = taken.load(std::memory_order_acquire); r >= t + ring; t = taken.load(std::memory_order_acquire))
        taken.wait(t);
      read_run(beside, r);
    }
  });
  size_t claimed = runs;   // a run this thread claimed but could not read yet (runs: none)
  for (size_t t = 0; t < runs;) {
    const size_t slot = t % ring;
    if (ready[slot].load(std::memory_order_acquire) == t + 1) {
      for (size_t i = t * run; i < std::min(items.size(), (t + 1) * run); ++i)
        take(i, std::move(values[slot * run + i - t * run]));
      taken.store(++t, std::memory_order_release);
      taken.notify_all();
      continue;
    }
    // Nothing to take yet: read a run if one is left and its slot is free, else wait for
    // the thread beside to finish the run to take next.
    if (claimed == runs) {
      const size_t r = next.load(std::memory_order_relaxed) < runs ? next.fetch_add(1) : runs;
      claimed = r < runs ? r : runs;
    }
    if (claimed < runs && claimed < t + ring) {
      read_run(mine, claimed);
      claimed = runs;
      continue;
    }
    const size_t seen = ready[slot].load(std::memory_order_acquire);
    if (seen != t + 1) ready[slot].wait(seen, std::memory_order_acquire);
  }
}

}  // namespace weft::descheduler
