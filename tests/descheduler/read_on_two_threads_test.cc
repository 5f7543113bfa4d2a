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
  ClusterBuilder::TextReader first(first_pools), second(second_pools);
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

// A scenario file holding `text`, read as `plan` reads it.
Result<Cluster> read_scenario(const std::string& text) {
  testing::TempDir dir("descheduler-scenario");
  testing::write_file(dir.file("list.json"), text);
  return cluster_from_file(dir.file("list.json"));
}

std::string list_of(const std::vector<test::json>& items) {
  return test::json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}}.dump();
}

// A list's text with its items as given (a tree would sort their keys).
std::string list_text(const std::vector<std::string>& items) {
  std::string text = R"({"apiVersion":"v1","kind":"List","items":[)";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? "," : "") + items[i];
  return text + "]}";
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
  auto read = read_scenario(list_of(items));
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

// Nodes of every shape the readers tell apart, read from their text in a scenario list, are
// the nodes their trees make: both records of each (this side's is made from the
// scheduler's), one arriving later left out, and a node met twice refused as before.
std::vector<test::json> odd_nodes() {
  std::vector<test::json> nodes;
  nodes.push_back(test::node("plain"));
  auto tainted = test::node("tainted", {{"weft.dev/leaf", "l1"}, {"zone", "a"}});
  tainted["spec"]["taints"] = {{{"key", "gpu"}, {"value", "x"}, {"effect", "NoSchedule"}}};
  tainted["spec"]["unschedulable"] = true;
  nodes.push_back(tainted);
  auto loaded = test::node("loaded");
  loaded["metadata"]["annotations"]["weft.dev/load"] =
      R"({"cpu":0.5,"memory":0.25,"cpu_at":"2026-11-28T04:00:00Z","memory_at":"2026-11-28T03:59:00Z","source":"ebpf"})";
  nodes.push_back(loaded);
  auto bad_load = test::node("bad-load");
  bad_load["metadata"]["annotations"]["weft.dev/load"] = "not a report";
  nodes.push_back(bad_load);
  auto not_ready = test::node("not-ready");
  not_ready["status"]["conditions"] = {{{"type", "MemoryPressure"}, {"status", "False"}},
                                       {{"type", "Ready"}, {"status", "False"}}};
  nodes.push_back(not_ready);
  auto odd_label = test::node("odd-label");
  odd_label["metadata"]["labels"]["count"] = 8;   // not a string: the scheduler's reading is its JSON text
  odd_label["metadata"]["annotations"]["weft.dev/arrival-cycle"] = "0";
  nodes.push_back(odd_label);
  auto capacity_only = test::node("capacity-only");
  capacity_only["status"]["capacity"] = capacity_only["status"]["allocatable"];
  capacity_only["status"].erase("allocatable");
  nodes.push_back(capacity_only);
  auto later = test::node("later");
  later["metadata"]["annotations"]["weft.dev/arrival-cycle"] = "3";
  nodes.push_back(later);
  return nodes;
}

void expect_same_nodes(const Cluster& read, const Cluster& added) {
  ASSERT_EQ(read.nodes.size(), added.nodes.size());
  for (size_t n = 0; n < added.nodes.size(); ++n) {
    const NodeInfo& r = read.nodes[n];
    const NodeInfo& a = added.nodes[n];
    SCOPED_TRACE(a.name);
    EXPECT_EQ(r.name, a.name);
    EXPECT_EQ(r.labels, a.labels);
    EXPECT_EQ(r.allocatable, a.allocatable);
    ASSERT_EQ(r.taints.size(), a.taints.size());
    for (size_t t = 0; t < a.taints.size(); ++t)
      EXPECT_EQ(r.taints[t].key + "=" + r.taints[t].value + ":" + r.taints[t].effect,
                a.taints[t].key + "=" + a.taints[t].value + ":" + a.taints[t].effect);
    EXPECT_EQ(r.ready, a.ready);
    EXPECT_EQ(r.unschedulable, a.unschedulable);
    ASSERT_EQ(r.annotated_load.has_value(), a.annotated_load.has_value());
    if (a.annotated_load) {
      EXPECT_EQ(r.annotated_load->cpu, a.annotated_load->cpu);
      EXPECT_EQ(r.annotated_load->memory, a.annotated_load->memory);
      EXPECT_EQ(r.annotated_load->cpu_at, a.annotated_load->cpu_at);
      EXPECT_EQ(r.annotated_load->memory_at, a.annotated_load->memory_at);
      EXPECT_EQ(r.annotated_load->source, a.annotated_load->source);
    }
    EXPECT_EQ(r.annotation_error, a.annotation_error);
  }
  ASSERT_EQ(read.snapshot.nodes.size(), added.snapshot.nodes.size());
  for (size_t n = 0; n < added.snapshot.nodes.size(); ++n) {
    EXPECT_EQ(read.snapshot.nodes[n].name, added.snapshot.nodes[n].name);
    EXPECT_EQ(read.snapshot.nodes[n].labels.size(), added.snapshot.nodes[n].labels.size());
    EXPECT_EQ(read.snapshot.nodes[n].allocatable, added.snapshot.nodes[n].allocatable);
    EXPECT_EQ(read.snapshot.nodes[n].ready, added.snapshot.nodes[n].ready);
  }
}

TEST(ClusterSource, NodesReadFromTheirTextAreTheNodesTheirTreesMake) {
  std::vector<test::json> items = odd_nodes();
  items.push_back(test::pod("p", "loaded"));
  std::vector<std::string> texts;
  for (const auto& item : items) texts.push_back(item.dump());
  // Its kind last, and escaped: only a reader that checks what it reads tells it is a Node.
  const std::string kind_last =
      R"({"metadata":{"name":"kind-last"},"status":{"allocatable":{"cpu":"4","pods":"110"}},"apiVersion":"v1","kind":"No\u0064e"})";
  texts.push_back(kind_last);
  items.push_back(test::json::parse(kind_last));
  auto read = read_scenario(list_text(texts));
  ASSERT_TRUE(read.ok()) << read.message();
  const Cluster added = test::build(items);
  EXPECT_EQ(read->nodes.size(), items.size() - 2);   // not the later one, nor the pod
  expect_same_nodes(*read, added);
  ASSERT_EQ(read->pods.size(), 1u);
  EXPECT_EQ(read->nodes[static_cast<size_t>(read->pods[0].node)].name, "loaded");
  const NodeInfo* odd = read->node("odd-label");
  ASSERT_NE(odd, nullptr);
  EXPECT_EQ(odd->labels.at("count"), "8");
  const NodeInfo* loaded = read->node("loaded");
  ASSERT_NE(loaded, nullptr);
  ASSERT_TRUE(loaded->annotated_load);
  EXPECT_EQ(loaded->annotated_load->source, "ebpf");
  EXPECT_NE(loaded->annotated_load->cpu_at, loaded->annotated_load->memory_at);
}

TEST(ClusterSource, ANodeMetTwiceInAListIsRefusedNamingTheItem) {
  std::vector<test::json> items = {test::node("n1"), test::node("n2"), test::node("n1")};
  auto read = read_scenario(list_of(items));
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.message().find("item 3 (Node n1)"), std::string::npos) << read.message();
  EXPECT_NE(read.message().find("node n1 appears twice"), std::string::npos) << read.message();
}

// What the text reader refuses is read as a tree, whose errors name the field.
TEST(ClusterSource, ANodeTheTextReaderRefusesIsToldAboutByItsTree) {
  auto bad = test::node("bad");
  bad["status"]["allocatable"]["cpu"] = "lots";
  std::vector<test::json> items = {test::node("n1"), bad};
  auto read = read_scenario(list_of(items));
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.message().find("item 2 (Node bad)"), std::string::npos) << read.message();
  EXPECT_NE(read.message().find("status.allocatable"), std::string::npos) << read.message();
}

}  // namespace
}  // namespace weft::descheduler
