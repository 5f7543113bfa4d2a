#include "common/shared_string.h"

#include <map>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace weft {
namespace {

TEST(SharedString, ReadsAsTheTextItHolds) {
  SharedString empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.str(), "");
  EXPECT_EQ(empty.use_count(), 0u);
  SharedString s("node-7");
  const std::string& read = s;
  EXPECT_EQ(read, "node-7");
  EXPECT_EQ(s.size(), 6u);
  EXPECT_STREQ(s.c_str(), "node-7");
  EXPECT_TRUE(s == "node-7");
  EXPECT_TRUE(s == std::string("node-7"));
  EXPECT_TRUE(std::string("node-7") == s);
  EXPECT_TRUE(s != "node-8");
  EXPECT_TRUE(s < "node-8");
  EXPECT_TRUE(SharedString("a") < SharedString("b"));
  EXPECT_EQ(s + "/x", "node-7/x");
  EXPECT_EQ(std::string("ns/") + s, "ns/node-7");
  EXPECT_TRUE(SharedString("") == empty);
  EXPECT_EQ(SharedString("").use_count(), 0u);   // the empty text is never allocated
}

TEST(SharedString, CopiesShareOneTextAndAssignmentsDoNot) {
  SharedString a("Running");
  SharedString b = a;
  EXPECT_TRUE(a.same_text_object(b));
  EXPECT_EQ(a.use_count(), 2u);
  b = "Running";   // assignment from a text: an unshared copy
  EXPECT_FALSE(a.same_text_object(b));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.use_count(), 1u);
  SharedString c = std::move(a);
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(c.use_count(), 1u);
  c = c;   // self-assignment keeps the text
  EXPECT_EQ(c, "Running");
  std::map<std::string, int> by_name{{"Running", 1}};
  EXPECT_EQ(by_name.at(c), 1);   // reads as const std::string&
}

TEST(StringPool, EqualTextsAreOneAndUnusedOnesAreSwept) {
  StringPool pool;
  SharedString a = pool.intern("team-a");
  SharedString b = pool.intern(std::string("team-") + "a");
  EXPECT_TRUE(a.same_text_object(b));
  EXPECT_EQ(a.use_count(), 3u);   // a, b and the pool
  EXPECT_TRUE(pool.intern("").empty());
  {
    SharedString gone = pool.intern("team-b");
    EXPECT_EQ(pool.size(), 2u);
  }
  EXPECT_EQ(pool.sweep(), 1u);    // team-b: only the pool held it
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_EQ(shared_text(nullptr, "x"), "x");
  EXPECT_TRUE(shared_text(&pool, "team-a").same_text_object(a));
}

// Through the pool's growth and sweeps, each text stays one object: what is held is found
// again after the texts around it were dropped.
TEST(StringPool, ManyTextsStayOneEachThroughGrowthAndSweeps) {
  StringPool pool;
  std::vector<SharedString> held;
  for (int i = 0; i < 5000; ++i) {
    SharedString s = pool.intern("owner-" + std::to_string(i));
    if (i % 3 == 0) held.push_back(s);
  }
  EXPECT_EQ(pool.size(), 5000u);
  EXPECT_EQ(pool.sweep(), 5000u - held.size());
  EXPECT_EQ(pool.size(), held.size());
  for (size_t k = 0; k < held.size(); ++k) {
    SharedString again = pool.intern("owner-" + std::to_string(3 * k));
    EXPECT_TRUE(again.same_text_object(held[k])) << again;
  }
  EXPECT_EQ(pool.size(), held.size());
  SharedString fresh = pool.intern("owner-1");
  EXPECT_EQ(fresh, "owner-1");
  EXPECT_EQ(fresh.use_count(), 2u);   // new, and the pool's
  EXPECT_EQ(pool.size(), held.size() + 1);
  held.clear();
  EXPECT_EQ(pool.sweep(), 5000u / 3 + 1);
  EXPECT_EQ(pool.size(), 1u);
}

TEST(StringPool, ThreadsInterningAndCopyingAgree) {
  StringPool pool;
  std::vector<std::vector<SharedString>> kept(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        SharedString s = pool.intern("node-" + std::to_string(i % 100));
        if (i % 7 == 0) kept[t].push_back(s);
        if (i % 1000 == 0) pool.sweep();
      }
    });
  for (auto& th : threads) th.join();
  for (auto& v : kept)
    for (auto& s : v) EXPECT_EQ(s.view().substr(0, 5), "node-");
  EXPECT_LE(pool.size(), 100u);
  SharedString first = pool.intern("node-0");
  for (auto& v : kept)
    for (auto& s : v) {
      if (s == "node-0") {
        EXPECT_TRUE(s.same_text_object(first));
      }
    }
}

}  // namespace
}  // namespace weft
