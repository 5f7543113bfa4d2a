// parse_projected(text, keep) is project(parse(text), keep) without building what is
// dropped: the same tree on every shape a projection meets, the same errors, and the list
// and watch decoders give the projected items and events (ERROR Status objects whole).
#include <gtest/gtest.h>

#include "kube/client/client.h"
#include "kube/client/list_decoder.h"
#include "kube/client/projection.h"
#include "kube/client/watch_decoder.h"

namespace weft::kube {
namespace {

using nlohmann::json;

json projected_the_slow_way(const std::string& text, const json& keep) {
  json whole = json::parse(text);
  project(whole, keep);
  return whole;
}

const json kKeep = {{"metadata", {{"name", true}, {"labels", true}, {"gone", false}}},
                    {"spec", {{"containers", {{"resources", {{"requests", true}}}}}, {"nodeName", true}}},
                    {"status", true},
                    {"weird", 7}};

TEST(KubeClientProjection, SameTreeAsParseThenProject) {
  const std::vector<std::string> texts = {
      R"({"metadata":{"name":"p","namespace":"n","labels":{"a":"1","b":{"c":[1,2]}},"gone":1,"managedFields":[{"x":{"y":[]}}]},
          "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"},"limits":{"cpu":"2"}}},
                                {"resources":null},7,[{"resources":{"requests":{}}}]],
                  "nodeName":"n1","volumes":[{"a":{"b":{"c":{}}}}]},
          "status":{"phase":"Running","conditions":[{"type":"Ready"}]},"weird":{"k":[true,false,null]},
          "kind":"Pod"})",
      R"({"metadata":"not an object","spec":[{"nodeName":"x","other":1},{"containers":{"resources":1,"x":2}}]})",
      R"([{"metadata":{"name":"a","z":1}},{"spec":{}},3,"s",null])",
      R"("just a string")",
      R"(12345678901234567890)",
      R"(-1.5e3)",
      R"({"metadata":{"name":"dup","name":"dup2"},"metadata":{"labels":{}}})",
      R"({})",
      R"([])",
  };
  for (const auto& text : texts) {
    auto fast = parse_projected(text, kKeep);
    ASSERT_TRUE(fast) << text << ": " << fast.message();
    EXPECT_EQ(*fast, projected_the_slow_way(text, kKeep)) << text;
    auto whole = parse_projected(text, nullptr);
    ASSERT_TRUE(whole) << whole.message();
    EXPECT_EQ(*whole, json::parse(text)) << text;
    auto all = parse_projected(text, true);
    ASSERT_TRUE(all) << all.message();
    EXPECT_EQ(*all, json::parse(text)) << text;
  }
}

TEST(KubeClientProjection, BrokenJsonIsAnErrorNamingWhere) {
  for (const std::string text : {R"({"metadata":{"name":"p")", R"({"a":1} trailing)", "", R"({"spec":{"x":[1,2,}})",
                                 R"({"a":1e999})"}) {
    auto r = parse_projected(text, kKeep);
    EXPECT_FALSE(r) << text;
    if (!r) {
      EXPECT_NE(r.message().find("json.exception"), std::string::npos) << r.message();
    }
  }
}

TEST(KubeClientProjection, ListItemsAndWatchObjectsAreDecodedProjected) {
  const std::string list =
      R"({"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[)"
      R"({"metadata":{"name":"a","uid":"u"},"spec":{"nodeName":"n","dnsPolicy":"x"}},)"
      R"({"metadata":{"name":"b"},"status":{"phase":"Pending"}}]})";
  std::vector<json> items;
  auto meta = decode_list(list, [&](json&& item) { items.push_back(std::move(item)); }, kKeep);
  ASSERT_TRUE(meta) << meta.message();
  EXPECT_EQ(meta->resource_version, "9");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0], json::parse(R"({"metadata":{"name":"a"},"spec":{"nodeName":"n"}})"));
  EXPECT_EQ(items[1], json::parse(R"({"metadata":{"name":"b"},"status":{"phase":"Pending"}})"));

  WatchDecoder watch(kKeep);
  std::vector<WatchEvent> events;
  const std::string stream =
      R"({"type":"MODIFIED","object":{"metadata":{"name":"a","uid":"u"},"spec":{"nodeName":"n","x":1}}})" "\n"
      R"({"object":{"kind":"Status","code":410,"reason":"Expired","message":"too old"},"type":"ERROR"})" "\n";
  ASSERT_TRUE(watch.feed(stream, [&](WatchEvent&& e) {
    events.push_back(std::move(e));
    return true;
  })) << watch.error();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, "MODIFIED");
  EXPECT_EQ(events[0].object, json::parse(R"({"metadata":{"name":"a"},"spec":{"nodeName":"n"}})"));
  EXPECT_EQ(events[1].type, "ERROR");
  EXPECT_EQ(events[1].object.value("code", 0), 410);   // the Status is read whole
  EXPECT_EQ(events[1].object.value("reason", ""), "Expired");

  WatchDecoder broken(kKeep);
  EXPECT_FALSE(broken.feed("{\"type\":\"ADDED\",\"object\":{\n", [](WatchEvent&&) { return true; }));
  EXPECT_FALSE(broken.error().empty());
}

}  // namespace
}  // namespace weft::kube
