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

// `read(reader, item)` makes a value of each item, block by block: this thread (with
// `mine`) and one beside it (with `beside`) take runs of `run` items from a shared count
// until the block is read, so the faster of the two reads more when the CPU is shared.
// A reader is used by one thread only: it need not be thread-safe, only what readers
// share. Then `take(index, value)` gets every value of the block in the items' order, on
// this thread: a caller that adds the values as it takes them adds exactly what reading
// them all in order on one thread would. Blocks bound what is held between reads and takes.
template <class Reader, class Read, class Take>
void read_on_two_threads(const std::vector<std::string_view>& items, Reader& mine, Reader& beside, Read&& read,
                         Take&& take, size_t block = 4096, size_t run = 32) {
  using Value = std::invoke_result_t<Read&, Reader&, std::string_view>;
  std::vector<Value> values;
  for (size_t begin = 0; begin < items.size(); begin += block) {
    const size_t end = std::min(items.size(), begin + block);
    values.clear();
    values.resize(end - begin);
    std::atomic<size_t> next{begin};
    auto read_runs = [&](Reader& reader) {
      for (size_t from = next.fetch_add(run); from < end; from = next.fetch_add(run))
        for (size_t i = from; i < std::min(end, from + run); ++i) values[i - begin] = read(reader, items[i]);
    };
    {
      std::jthread other([&] { read_runs(beside); });
      read_runs(mine);
    }
    for (size_t i = begin; i < end; ++i) take(i, std::move(values[i - begin]));
  }
}

}  // namespace weft::descheduler
