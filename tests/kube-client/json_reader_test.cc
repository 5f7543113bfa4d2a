// read_json(text) is nlohmann's parse(text), and read_json(text, keep) is
// project(parse(text), keep) without building what is dropped: the same tree (number kinds
// too) on every shape a projection meets, the same inputs refused, and the list and watch
// decoders give the projected items and events (ERROR Status objects whole).
#include <functional>

#include <gtest/gtest.h>

#include "kube/client/client.h"
#include "kube/client/json_cursor.h"
#include "kube/client/json_reader.h"
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

TEST(KubeClientJsonReader, SameTreeAsParseThenProject) {
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
    auto fast = read_json(text, kKeep);
    ASSERT_TRUE(fast) << text << ": " << fast.message();
    EXPECT_EQ(fast->dump(), projected_the_slow_way(text, kKeep).dump()) << text;
    auto whole = read_json(text, nullptr);
    ASSERT_TRUE(whole) << whole.message();
    EXPECT_EQ(whole->dump(), json::parse(text).dump()) << text;
    auto all = read_json(text, true);
    ASSERT_TRUE(all) << all.message();
    EXPECT_EQ(all->dump(), json::parse(text).dump()) << text;
  }
}

// Every corner where JSON readers differ, read as nlohmann reads it: number kinds and
// limits, escapes and surrogate pairs, UTF-8, a byte-order mark, a NUL byte ending the input.
TEST(KubeClientJsonReader, ReadsWhatNlohmannReadsAsItReadsIt) {
  const std::vector<std::string> texts = {
      "0", "-0", "-0.0", "18446744073709551615", "18446744073709551616", "-9223372036854775808",
      "-9223372036854775809", "1e-400", "-1e-400", "4.9e-324", "2.2250738585072011e-308", "1.7976931348623157e308",
      "0.1", "3.0000000000000004", "9007199254740993.0", "1.5E+3", "123456789012345678901234567890",
      "[1,-2,3.25,true,false,null]",
      R"("\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u20AC \ud83d\ude00 \u0000")", "\"h\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"",
      "\xEF\xBB\xBF{\"bom\":1}", std::string("{\"nul\":1}\0trailing", 18), " \t\r\n[ ] ",
      R"({"b":1,"a":2,"b":3})", std::string(500, '[') + std::string(500, ']')};
  for (const auto& text : texts) {
    auto read = read_json(text);
    ASSERT_TRUE(read) << text << ": " << read.message();
    EXPECT_EQ(read->dump(), json::parse(text).dump()) << text;
    EXPECT_EQ(read->type(), json::parse(text).type()) << text;
  }
}

// No recursion: a nesting far deeper than any stack holds is read (and, unbalanced, refused).
TEST(KubeClientJsonReader, AnyDepthIsReadWithoutRecursion) {
  constexpr size_t kDepth = 200000;
  auto read = read_json(std::string(kDepth, '[') + std::string(kDepth, ']'));
  ASSERT_TRUE(read) << read.message();
  size_t depth = 0;
  for (const json* v = &*read; v->is_array(); v = &v->front()) {
    ++depth;
    if (v->empty()) break;
  }
  EXPECT_EQ(depth, kDepth);
  EXPECT_FALSE(read_json(std::string(kDepth, '[') + std::string(kDepth - 1, ']')));
}

TEST(KubeClientJsonReader, RefusesWhatNlohmannRefusesNamingTheByte) {
  const std::vector<std::string> texts = {
      R"({"metadata":{"name":"p")", R"({"a":1} trailing)", "", R"({"spec":{"x":[1,2,}})", R"({"a":1e999})", "-1e999", "1.8e308",
      "01", "-", "1.", ".5", "1e", "+1", "tru", "nul", "[1,]", R"({"a" 1})", R"({a:1})", "\"\x01\"", R"("\x")",
      R"("\u12")", R"("\ud83d")", R"("\ude00")", R"("\ud83d\u0041")", "\"\xC0\xAF\"", "\"\xED\xA0\x80\"",
      "\"\xF4\x90\x80\x80\"", "\"\xE2\x82\"", "\xEF\xBB{}", std::string("\0{}", 3), "[1 2]", "/* c */ 1"};
  for (const auto& text : texts) {
    EXPECT_TRUE(json::parse(text, nullptr, false).is_discarded()) << "the case itself: " << text;
    auto r = read_json(text, kKeep);
    EXPECT_FALSE(r) << text;
    if (!r) {
      EXPECT_NE(r.message().find("at byte "), std::string::npos) << r.message();
    }
    EXPECT_FALSE(read_json(text)) << text;
  }
  auto r = read_json(R"({"spec":{"x":[1,2,}})");
  ASSERT_FALSE(r);
  EXPECT_NE(r.message().find("at byte 18"), std::string::npos) << r.message();
}

TEST(KubeClientJsonReader, ListItemsAndWatchObjectsAreDecodedProjected) {
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

// Raw mode (the scheduler's pods and nodes): items and watch objects are handed over as
// their own text, with the identity an informer keys them by; ERROR Status objects are
// still read whole, and a line that is not an event is refused.
TEST(KubeClientJsonReader, RawListItemsAndWatchObjectsAreTheirTextWithTheirIdentity) {
  const std::string list =
      R"({"kind":"PodList","metadata":{"resourceVersion":"9"},"items":[ )"
      R"({"metadata":{"name":"a","namespace":"ns","resourceVersion":"3"},"spec":{"x":[1,{"y":"é"}]}} ,)"
      R"({"metadata":{"name":"n","resourceVersion":5}}]})";
  std::vector<std::pair<std::string, std::string>> items;
  auto meta = decode_list_raw(list, [&](std::string_view text, ObjectIdentity&& id) {
    items.emplace_back(std::string(text), id.key() + "@" + id.resource_version);
  });
  ASSERT_TRUE(meta) << meta.message();
  EXPECT_EQ(meta->resource_version, "9");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].first, R"({"metadata":{"name":"a","namespace":"ns","resourceVersion":"3"},"spec":{"x":[1,{"y":"é"}]}})");
  EXPECT_EQ(items[0].second, "ns/a@3");
  EXPECT_EQ(items[1].second, "n@");   // a version that is not a string is no version, as key_of reads it
  EXPECT_FALSE(decode_list_raw(R"({"items":[1]})", [](std::string_view, ObjectIdentity&&) {}));
  EXPECT_FALSE(decode_list_raw(R"({"items":[{"a":}]})", [](std::string_view, ObjectIdentity&&) {}));

  WatchDecoder watch(nullptr, true);
  std::vector<WatchEvent> events;
  std::vector<std::string> texts;
  const std::string stream =
      R"({"type":"ADDED","object":{"metadata":{"name":"a","namespace":"ns","resourceVersion":"10"}}})" "\n"
      R"({"object":{"metadata":{"resourceVersion":"11"}},"type":"BOOKMARK"})" "\n"
      R"({"object":{"kind":"Status","code":410,"reason":"Expired"},"type":"ERROR"})" "\n";
  ASSERT_TRUE(watch.feed(stream.substr(0, 30), [](WatchEvent&&) { return true; }));   // split anywhere
  ASSERT_TRUE(watch.feed(stream.substr(30), [&](WatchEvent&& e) {
    texts.emplace_back(e.raw);
    events.push_back(std::move(e));
    return true;
  })) << watch.error();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, "ADDED");
  EXPECT_EQ(texts[0], R"({"metadata":{"name":"a","namespace":"ns","resourceVersion":"10"}})");
  EXPECT_EQ(events[0].identity.key(), "ns/a");
  EXPECT_TRUE(events[0].object.is_null());
  EXPECT_EQ(events[1].identity.resource_version, "11");
  EXPECT_EQ(events[2].type, "ERROR");
  EXPECT_EQ(events[2].object.value("code", 0), 410);
  for (const char* line : {R"({"type":"ADDED"})", R"({"type":"ADDED","object":[]})", R"({"type":1,"object":{}})",
                           R"({"type":"ADDED","object":{}} x)", R"({"type":"ADDED","object":{"a":tru}})"}) {
    WatchDecoder broken(nullptr, true);
    EXPECT_FALSE(broken.feed(std::string(line) + "\n", [](WatchEvent&&) { return true; })) << line;
    EXPECT_NE(broken.error().find("not a watch event"), std::string::npos) << line;
  }
}

TEST(KubeClientJsonReader, ListItemTextsAreFoundByBracketsAndTheContinueTokenReadAhead) {
  const std::string list =
      R"({"kind":"PodList","metadata":{"resourceVersion":"9","continue":"c\"1"},"items":[ )"
      R"({"metadata":{"name":"a"},"spec":{"s":"]}{\""}} ,)"
      R"({"metadata":{"name":"b"}}]})";
  std::vector<std::string> items;
  auto meta = decode_list_texts(list, [&](std::string_view text) { items.emplace_back(text); });
  ASSERT_TRUE(meta) << meta.message();
  EXPECT_EQ(meta->continue_token, "c\"1");
  EXPECT_EQ(items, (std::vector<std::string>{R"({"metadata":{"name":"a"},"spec":{"s":"]}{\""}})",
                                             R"({"metadata":{"name":"b"}})"}));
  EXPECT_EQ(continue_of(list), "c\"1");
  // Items before metadata are passed over by their brackets; no token, no continue.
  EXPECT_EQ(continue_of(R"({"items":[{"a":"}"}],"metadata":{"continue":"x"}})"), "x");
  EXPECT_EQ(continue_of(R"({"items":[],"metadata":{}})"), "");
  EXPECT_FALSE(decode_list_texts(R"({"items":[{"a":1})", [](std::string_view) {}));
}

TEST(KubeClientJsonCursor, WalksObjectsAndArraysCheckingWhatItSkips) {
  const std::string text = R"( {"a": "x\"y", "b": [1, {"c": null}], "d": {"e": true}, "f": null} )";
  JsonCursor c(text);
  ASSERT_TRUE(c.enter_object());
  std::string key, value;
  std::vector<std::string> seen;
  for (;;) {
    auto more = c.next_key(key);
    ASSERT_TRUE(more) << more.message();
    if (!*more) break;
    if (key == "a") {
      ASSERT_TRUE(c.string_field("a", value));
      seen.push_back("a=" + value);
    } else if (key == "b") {
      ASSERT_EQ(c.peek(), '[');
      ASSERT_TRUE(c.enter_array());
      int n = 0;
      for (;;) {
        auto next = c.next_element();
        ASSERT_TRUE(next);
        if (!*next) break;
        auto skipped = c.skip();
        ASSERT_TRUE(skipped);
        seen.push_back("b[" + std::to_string(n++) + "]=" + std::string(*skipped));
      }
    } else if (key == "f") {
      auto entered = c.object_field("f");
      ASSERT_TRUE(entered);
      EXPECT_FALSE(*entered);   // null: absent
    } else {
      auto skipped = c.skip();
      ASSERT_TRUE(skipped);
      seen.push_back(key + "=" + std::string(*skipped));
    }
  }
  EXPECT_TRUE(c.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"a=x\"y", "b[0]=1", R"(b[1]={"c": null})", R"(d={"e": true})"}));

  JsonCursor wrong(R"({"a": 5})");
  ASSERT_TRUE(wrong.enter_object());
  ASSERT_TRUE(*wrong.next_key(key));
  auto s = wrong.string_field("spec.a", value);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "spec.a: 5 is not a string");
  for (const char* bad : {R"({"a" 1})", R"({"a":1,})", R"({"a":[1 2]})", R"({"a":"\x"})", R"({"a":01})"}) {
    JsonCursor b(bad);
    bool failed = !b.enter_object();
    while (!failed) {
      auto more = b.next_key(key);
      if (!more) failed = true;
      else if (!*more) break;
      else if (!b.skip()) failed = true;
    }
    EXPECT_TRUE(failed) << bad;
  }
}

// Keys are views into the text, or into a buffer of their own object's walk when they have
// escapes: an escaped key is still whole after a nested object's escaped keys were read.
TEST(KubeClientJsonCursor, EscapedKeysAreUnescapedAndOutliveNestedOnes) {
  const std::string text = R"({"pl\u0061in":1,"n\u00e9sted":{"\u0069nner":2,"x\"y":3},"last":4})";
  JsonCursor c(text);
  std::vector<std::string> seen;
  auto s = c.members("o", [&](std::string_view key) -> Status {
    if (c.peek() != '{') return seen.emplace_back(key), c.pass_over();
    auto inner = c.members("o.n", [&](std::string_view k) { return seen.emplace_back(k), c.pass_over(); });
    seen.emplace_back(std::string(key) + " after its members");
    return inner;
  });
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(seen, (std::vector<std::string>{"plain", "inner", "x\"y", "n\xC3\xA9sted after its members", "last"}));
  // The copying form gives the same text.
  JsonCursor copied(R"({"\u0061b":1})");
  ASSERT_TRUE(copied.enter_object());
  std::string key = "old";
  ASSERT_TRUE(*copied.next_key(key));
  EXPECT_EQ(key, "ab");
}

// A member's plain string found without checking: a hint, "" whenever the text is not plain.
TEST(KubeClientJsonCursor, FindsATopLevelMembersPlainStringAsAHint) {
  using kube::json_plain_string_member;
  EXPECT_EQ(json_plain_string_member(R"({"kind":"Node","metadata":{}})", "kind"), "Node");
  EXPECT_EQ(json_plain_string_member(R"( { "apiVersion" : "v1" , "metadata": {"kind":"Pod","a":[1,"}"]},
    "kind" : "Node" })", "kind"), "Node");
  EXPECT_EQ(json_plain_string_member(R"({"spec":{"x":"a\"}"},"kind":"Pod"})", "kind"), "Pod");
  for (const char* none : {R"({"metadata":{"kind":"Node"}})", R"({"kind":"No\u0064e"})", R"({"kind":5})",
                           R"({"kind":"Node)", R"({"ki\nd":"Node"})", R"(["kind","Node"])", "", R"({"kind")",
                           R"({"a":1 "kind":"Node"})", R"({"a")", R"({"kind":)", R"(")"})
    EXPECT_EQ(json_plain_string_member(none, "kind"), "") << none;
}

// Each open container keeps whether its next member is its first, however deep they
// nest: [{"a":[{"a":...}],"b":1}] walked 100 deep, each level's second member after its first.
TEST(KubeClientJsonCursor, NestsDeeperThanAWordOfFlags) {
  constexpr int kDepth = 100;
  std::string text;
  for (int i = 0; i < kDepth; ++i) text += R"([{"a":)";
  text += "0";
  for (int i = 0; i < kDepth; ++i) text += R"(,"b":1},2])";
  JsonCursor c(text);
  std::string key;
  int deepest = 0, seconds = 0;
  std::function<Status(int)> level = [&](int depth) -> Status {
    deepest = std::max(deepest, depth);
    return c.elements("list", [&](size_t i) -> Status {
      if (i == 1) return c.pass_over();
      return c.members("object", [&](std::string_view k) -> Status {
        if (k == "b") return ++seconds, c.pass_over();
        return c.peek() == '[' ? level(depth + 1) : c.pass_over();
      });
    });
  };
  ASSERT_TRUE(level(1));
  EXPECT_TRUE(c.end());
  EXPECT_EQ(deepest, kDepth);
  EXPECT_EQ(seconds, kDepth);
  // A comma missing at depth 80 is still seen there.
  std::string bad = text;
  const size_t comma = kDepth * 6 + 1 + (kDepth - 80) * 10;
  ASSERT_EQ(bad.substr(comma, 4), R"(,"b")");
  bad.erase(comma, 1);
  JsonCursor e(bad);
  std::function<Status()> any = [&]() -> Status {
    const char kind = e.peek();
    if (kind == '[') return e.elements("l", [&](size_t) { return any(); });
    if (kind == '{') return e.members("o", [&](std::string_view) { return any(); });
    return e.pass_over();
  };
  auto s = any();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("at byte " + std::to_string(comma)), std::string::npos) << s.message();
}

}  // namespace
}  // namespace weft::kube
