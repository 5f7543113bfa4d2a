// A scenario's pods read on two threads (descheduler/app/read_on_two_threads.h), each
// with its own reader and pools, and added in the file's order: the same cluster as one
// thread reading them in order.
#include "descheduler/app/read_on_two_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "descheduler/app/cluster_source.h"
#include "tests/descheduler/fixtures.h"
#include "tests/support/process.h"

namespace weft::descheduler {
namespace {

size_t taken_so_far(size_t& taken) { return std::atomic_ref<size_t>(taken).load(); }

// Notes every thread that used it: a reader is never shared between the two.
struct CountingReader {
  std::set<std::thread::id> threads;
  size_t items = 0;
};

TEST(ReadOnTwoThreads, EveryItemIsTakenOnceInTheItemsOrderEachReaderOnOneThread) {
  std::vector<std::string> texts;
  for (int i = 0; i < 1003; ++i) texts.push_back(std::to_string(i));
  std::vector<std::string_view> items(texts.begin(), texts.end());
  CountingReader mine, beside;
  std::vector<size_t> taken;
  const auto caller = std::this_thread::get_id();
  auto read = [](CountingReader& reader, std::string_view item) {
    reader.threads.insert(std::this_thread::get_id());
    ++reader.items;
    return std::string(item) + "!";
  };
  // A window of 100 and runs of 7: neither divides the list, so the last run is short.
  read_on_two_threads(items, mine, beside, read, [&](size_t i, std::string&& value) {
    EXPECT_EQ(value, texts[i] + "!");
    EXPECT_EQ(std::this_thread::get_id(), caller);
    taken.push_back(i);
  }, 100, 7);
  ASSERT_EQ(taken.size(), texts.size());
  for (size_t i = 0; i < taken.size(); ++i) EXPECT_EQ(taken[i], i);
  EXPECT_EQ(mine.items + beside.items, texts.size());
  EXPECT_EQ(mine.threads, std::set<std::thread::id>{caller});
  EXPECT_EQ(beside.threads.size(), beside.items ? 1u : 0u);   // one thread for the whole list, never the caller
  EXPECT_FALSE(beside.threads.count(caller));

  size_t none = 0;
  read_on_two_threads(std::vector<std::string_view>{}, mine, beside, read, [&](size_t, std::string&&) { ++none; });
  EXPECT_EQ(none, 0u);
}

// Taking overlaps reading: the caller takes what is read while the thread beside reads
// ahead, never holding more than the window (in whole runs) between a read and its take,
// and in order even when one reader is much slower than the other.
TEST(ReadOnTwoThreads, ReadsAheadWithinTheWindowWhileTakingInOrder) {
  std::vector<std::string> texts;
  for (int i = 0; i < 2000; ++i) texts.push_back(std::to_string(i));
  std::vector<std::string_view> items(texts.begin(), texts.end());
  for (bool slow_beside : {false, true}) {
    CountingReader mine, beside;
    std::atomic<size_t> read_count{0}, most_held{0};
    size_t taken = 0;
    auto read = [&](CountingReader& reader, std::string_view item) {
      if (slow_beside == (&reader == &beside) && item.back() == '3')
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      ++reader.items;
      // Read after the count, `taken` can only be larger than when this item was counted.
      const auto held = static_cast<long long>(++read_count) - static_cast<long long>(taken_so_far(taken));
      for (size_t m = most_held.load(); held > static_cast<long long>(m) &&
                                        !most_held.compare_exchange_weak(m, static_cast<size_t>(held));) {
      }
      return std::string(item);
    };
    read_on_two_threads(items, mine, beside, read, [&](size_t i, std::string&& value) {
      ASSERT_EQ(i, taken);
      EXPECT_EQ(value, texts[i]);
      std::atomic_ref<size_t>(taken).store(i + 1);
    }, 60, 8);   // 64 items held at most: 8 runs of 8
    EXPECT_EQ(taken, texts.size());
    EXPECT_EQ(mine.items + beside.items, texts.size());
    EXPECT_LE(most_held.load(), 64u);
  }
}

// Items found on the thread beside while those found are read: a slow finder, a list
// that ends within a run or before the first, every item taken once in order.
TEST(ReadOnTwoThreads, ItemsFoundWhileReadAreEachTakenOnceInOrder) {
  std::vector<std::string> texts;
  for (int i = 0; i < 3001; ++i) texts.push_back(std::to_string(i));
  for (size_t count : {size_t{0}, size_t{5}, size_t{300}, texts.size()}) {
    FoundItems items(count);
    auto find = [&](FoundItems& found) {
      for (size_t i = 0; i < count; ++i) {
        if (i % 500 == 499) std::this_thread::sleep_for(std::chrono::milliseconds(2));   // readers wait
        found.add(texts[i]);
      }
    };
    CountingReader mine, beside;
    std::vector<size_t> taken;
    auto read = [](CountingReader& reader, std::string_view item) {
      ++reader.items;
      return std::string(item);
    };
    find_and_read_on_two_threads(items, find, mine, beside, read, [&](size_t i, std::string&& value) {
      EXPECT_EQ(value, texts[i]);
      taken.push_back(i);
    }, 100, 16);
    ASSERT_EQ(taken.size(), count);
    for (size_t i = 0; i < taken.size(); ++i) EXPECT_EQ(taken[i], i);
    EXPECT_EQ(mine.items + beside.items, count);
    EXPECT_EQ(items.wait_for(count + 1), count);   // the list ended there
  }
}

// Two readers on their own pools share no text object; one reader pools as before.
TEST(ReadOnTwoThreads, ReadersOnTheirOwnPoolsReadEqualTextsApart) {
  const std::string text = test::pod("p", "n1", {.ns = "team-a"}).dump();
  scheduler::DecodePools first_pools, second_pools;
  ClusterBuilder::PodReader first(first_pools), second(second_pools);
  auto a = first.read_text(text, "a");
  auto b = first.read_text(text, "b");
  auto c = second.read_text(text, "c");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_TRUE(a->bound && b->bound && c->bound);
  EXPECT_TRUE(a->spec.namespace_name.same_text_object(b->spec.namespace_name));
  EXPECT_TRUE(a->bound->owner_kind.same_text_object(b->bound->owner_kind));
  EXPECT_EQ(a->spec.namespace_name, c->spec.namespace_name);
  EXPECT_FALSE(a->spec.namespace_name.same_text_object(c->spec.namespace_name));
  EXPECT_EQ(a->bound->owner_kind, c->bound->owner_kind);
  EXPECT_FALSE(a->bound->owner_kind.same_text_object(c->bound->owner_kind));
}

// More pods than one block of the two-thread read, with a PodGroup, a PriorityClass, a
// finished pod and one arriving later among them: the cluster a scenario file makes is
// the one adding the same objects one by one makes.
TEST(ClusterSource, PodsReadOnTwoThreadsMakeTheClusterOneThreadMakes) {
  std::vector<test::json> items;
  for (int n = 0; n < 10; ++n) items.push_back(test::node("n" + std::to_string(n)));
  for (int i = 0; i < 9000; ++i) {
    if (i == 4500) {
      items.push_back(test::podgroup("g", 2, "team-1"));
      items.push_back({{"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"},
                       {"metadata", {{"name", "high"}}}, {"value", 5000}});
    }
    test::PodSpec spec{.ns = "team-" + std::to_string(i % 3), .cpu = std::to_string(1 + i % 4),
                       .priority = i % 5 == 0 ? 100 : 0, .owner = "rs-" + std::to_string(i % 40),
                       .group = i % 9 == 0 ? "g" : ""};
    auto p = test::pod("p" + std::to_string(i), "n" + std::to_string(i % 10), spec);
    if (i % 11 == 0) p["status"]["phase"] = "Succeeded";
    if (i % 13 == 0) p["spec"].erase("priority"), p["spec"]["priorityClassName"] = "high";
    if (i == 7777) p["metadata"]["annotations"]["weft.dev/arrival-cycle"] = "2";
    items.push_back(std::move(p));
  }
  testing::TempDir dir("descheduler-two-threads");
  testing::write_file(dir.file("list.json"), test::json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump());
  auto read = cluster_from_file(dir.file("list.json"));
  ASSERT_TRUE(read.ok()) << read.message();
  const Cluster added = test::build(items);

  ASSERT_EQ(read->pods.size(), added.pods.size());
  EXPECT_EQ(read->pods.size(), 8999u);   // the one arriving later is not here
  for (size_t i = 0; i < added.pods.size(); ++i) {
    const PodInfo& r = read->pods[i];
    const PodInfo& a = added.pods[i];
    ASSERT_EQ(r.key(), a.key()) << i;
    EXPECT_EQ(r.node, a.node) << r.key();
    EXPECT_EQ(r.priority, a.priority) << r.key();
    EXPECT_EQ(r.owner_key(), a.owner_key()) << r.key();
    EXPECT_EQ(r.group, a.group) << r.key();
    EXPECT_EQ(r.phase, a.phase) << r.key();
    EXPECT_EQ(r.terminal, a.terminal) << r.key();
    EXPECT_EQ(r.qos, a.qos) << r.key();
    EXPECT_EQ(r.core, a.core) << r.key();
    EXPECT_EQ(r.spec->key, a.spec->key) << r.key();
    EXPECT_EQ(r.spec->filter_signature, a.spec->filter_signature) << r.key();
    EXPECT_EQ(r.requests(), a.requests()) << r.key();
  }
  ASSERT_EQ(read->snapshot.pods.size(), added.snapshot.pods.size());
  for (size_t i = 0; i < added.snapshot.pods.size(); ++i)
    EXPECT_EQ(read->snapshot.pods[i].key, added.snapshot.pods[i].key) << i;
  for (size_t n = 0; n < added.nodes.size(); ++n) {
    EXPECT_EQ(read->nodes[n].pods, added.nodes[n].pods) << added.nodes[n].name;
    EXPECT_EQ(read->nodes[n].terminal_pods, added.nodes[n].terminal_pods) << added.nodes[n].name;
    EXPECT_EQ(read->nodes[n].requested, added.nodes[n].requested) << added.nodes[n].name;
  }
  EXPECT_EQ(read->running_in_group, added.running_in_group);
  EXPECT_EQ(read->pods_of_owner, added.pods_of_owner);
}

}  // namespace
}  // namespace weft::descheduler
