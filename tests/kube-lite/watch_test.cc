// Watch sessions over the store: from a version, selector transitions, the event
// window's 410, dropped streams and bookmarks.
#include "tools/kube-lite/watch.h"

#include <gtest/gtest.h>

#include <sstream>
#include <thread>

namespace weft::kube_lite {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

class WatchTest : public ::testing::Test {
 protected:
  json node(const std::string& name, json labels = json::object()) {
    return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}, {"labels", labels}}}};
  }
  Reply label(const std::string& name, const std::string& value) {
    return reg.patch(admin, types.nodes(), "", name, "", "application/merge-patch+json",
                     json{{"metadata", {{"labels", {{"role", value}}}}}}.dump(), false);
  }
  ObjectFilter filter(const std::string& labels = "") {
    return std::get<ObjectFilter>(ObjectFilter::make(types.nodes(), "", labels, ""));
  }
  // Every event line until the session ends or nothing comes for a while.
  std::vector<json> drain(WatchSession& s, int max_empty = 2) {
    std::vector<json> out;
    int empty = 0;
    while (empty < max_empty) {
      auto chunk = s.next(milliseconds(20));
      if (!chunk) break;
      if (chunk->empty()) {
        ++empty;
        continue;
      }
      std::istringstream lines(*chunk);
      std::string line;
      while (std::getline(lines, line)) out.push_back(json::parse(line));
    }
    return out;
  }
  std::string rv() { return std::to_string(store.resource_version()); }

  ResourceTypes types;
  Store store{types.all().size(), 8};
  Registry reg{types, store};
  User admin{"", {}, {}, std::nullopt, true};
};

TEST_F(WatchTest, FromVersionInOrderWithSelectorTransitions) {
  reg.create(admin, types.nodes(), "", node("a", {{"role", "gpu"}}), false);
  std::string from = rv();
  WatchSession s(store, types.nodes(), filter("role=gpu"), {from, false, 0, 0});
  ASSERT_FALSE(s.start());
  label("a", "cpu");   // leaves the selection: DELETED
  label("a", "gpu");   // comes back: ADDED
  reg.create(admin, types.nodes(), "", node("b", {{"role", "cpu"}}), false);  // never selected
  label("a", "gpu");   // no change: no event
  auto events = drain(s);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "DELETED");
  EXPECT_EQ(events[1]["type"], "ADDED");
  EXPECT_EQ(events[1]["object"]["metadata"]["labels"]["role"], "gpu");
}

TEST_F(WatchTest, FromNowStartsWithCurrentObjects) {
  reg.create(admin, types.nodes(), "", node("a"), false);
  WatchSession s(store, types.nodes(), filter(), {"", false, 0, 0});
  ASSERT_FALSE(s.start());
  reg.remove(admin, types.nodes(), "", "a", json(), false);
  auto events = drain(s);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0]["type"], "ADDED");
  EXPECT_EQ(events[1]["type"], "DELETED");
}

TEST_F(WatchTest, TooOldVersionIsAnExpiredErrorEvent) {
  reg.create(admin, types.nodes(), "", node("a"), false);
  for (int i = 0; i < 20; ++i) label("a", std::to_string(i));  // the window keeps 8 events
  WatchSession s(store, types.nodes(), filter(), {"5", false, 0, 0});
  ASSERT_FALSE(s.start());
  auto events = drain(s);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "ERROR");
  EXPECT_EQ(events[0]["object"]["code"], 410);
  EXPECT_EQ(events[0]["object"]["reason"], "Expired");
  WatchSession bad(store, types.nodes(), filter(), {"abc", false, 0, 0});
  EXPECT_TRUE(bad.start());
}

// The real server keeps a window per resource: another type's writes pushing their own
// events out never expire a watch that has missed nothing of its type.
TEST_F(WatchTest, OtherTypesLeavingTheWindowDoNotExpireAWatch) {
  const auto& configmaps = *types.find("", "v1", "configmaps");
  reg.create(admin, types.nodes(), "", node("a"), false);
  WatchSession s(store, types.nodes(), filter(), {rv(), false, 0, 0});
  ASSERT_FALSE(s.start());
  for (int i = 0; i < 20; ++i)   // the window keeps 8 events
    reg.create(admin, configmaps, "default", {{"metadata", {{"name", "cm" + std::to_string(i)}}}}, false);
  label("a", "gpu");
  auto events = drain(s);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["type"], "MODIFIED");
  EXPECT_EQ(events[0]["object"]["metadata"]["labels"]["role"], "gpu");
}

// A stream of changes (a scheduler's bindings) is sent in chunks of many events, not one
// write (and one wake-up of the watch) per event; nothing is lost or reordered.
TEST_F(WatchTest, AStreamOfEventsIsSentInFewChunks) {
  Store big_store{types.all().size(), 10000};
  Registry big{types, big_store};
  big.create(admin, types.nodes(), "", node("a"), false);
  WatchSession s(big_store, types.nodes(), filter(), {std::to_string(big_store.resource_version()), false, 0, 0});
  ASSERT_FALSE(s.start());
  constexpr int kChanges = 300;
  std::thread writer([&] {
    for (int i = 0; i < kChanges; ++i)
      big.patch(admin, types.nodes(), "", "a", "", "application/merge-patch+json",
                json{{"metadata", {{"labels", {{"role", std::to_string(i)}}}}}}.dump(), false);
  });
  int chunks = 0, events = 0, expect = 0;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       events < kChanges && std::chrono::steady_clock::now() < until;) {
    auto chunk = s.next(milliseconds(20));
    ASSERT_TRUE(chunk);
    if (chunk->empty()) continue;
    ++chunks;
    std::istringstream lines(*chunk);
    for (std::string line; std::getline(lines, line); ++events)
      EXPECT_EQ(json::parse(line)["object"]["metadata"]["labels"]["role"], std::to_string(expect++));
  }
  writer.join();
  EXPECT_EQ(events, kChanges);
  EXPECT_LE(chunks * 6, events) << chunks << " chunks for " << events << " events";
}

TEST_F(WatchTest, DropsAfterNEventsAndResumesWithoutLossOrRepeat) {
  reg.create(admin, types.nodes(), "", node("a"), false);
  std::string from = rv();
  for (int i = 0; i < 7; ++i) label("a", std::to_string(i));
  std::vector<std::string> seen;
  for (int round = 0; round < 5 && seen.size() < 7; ++round) {
    WatchSession s(store, types.nodes(), filter(), {from, false, 0, 3});
    ASSERT_FALSE(s.start());
    auto events = drain(s);
    EXPECT_LE(events.size(), 3u);
    for (auto& e : events) {
      seen.push_back(e["object"]["metadata"]["labels"]["role"]);
      from = e["object"]["metadata"]["resourceVersion"];
    }
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6"}));
}

TEST_F(WatchTest, BookmarksCarryTheCurrentVersionWhenIdle) {
  reg.create(admin, types.nodes(), "", node("a"), false);
  WatchOptions o{rv(), true, 0, 0, milliseconds(30)};
  WatchSession s(store, types.nodes(), filter(), o);
  ASSERT_FALSE(s.start());
  // A change to another type moves the version on without an event for this watch.
  reg.create(admin, *types.find("", "v1", "configmaps"), "default",
             {{"metadata", {{"name", "cm"}}}, {"data", {{"k", "v"}}}}, false);
  std::string now = rv();
  auto events = drain(s, 10);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back()["type"], "BOOKMARK");
  EXPECT_EQ(events.back()["object"]["metadata"]["resourceVersion"], now);
  for (auto& e : events) EXPECT_EQ(e["type"], "BOOKMARK");
}

// An idle watch waits for its next bookmark instead of returning early: an empty chunk
// comes back only after a real wait (the server thread would otherwise spin).
TEST_F(WatchTest, IdleWatchNeverReturnsEmptyWithoutWaiting) {
  WatchOptions o{rv(), true, 0, 0, milliseconds(30)};
  WatchSession s(store, types.nodes(), filter(), o);
  ASSERT_FALSE(s.start());
  int bookmarks = 0, empties = 0;
  auto until = std::chrono::steady_clock::now() + milliseconds(200);
  while (std::chrono::steady_clock::now() < until) {
    auto t0 = std::chrono::steady_clock::now();
    auto chunk = s.next(milliseconds(20));
    auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_TRUE(chunk);
    if (chunk->empty()) {
      ++empties;
      EXPECT_GE(took, milliseconds(1)) << "empty chunk after " << std::chrono::nanoseconds(took).count() << " ns";
    } else {
      ++bookmarks;
    }
  }
  // Every 30 ms over 200 ms; waits of at most 20 ms in between.
  EXPECT_GE(bookmarks, 4);
  EXPECT_LE(empties, 2 * bookmarks + 2);
}

}  // namespace
}  // namespace weft::kube_lite
