// The weft.dev/load annotation (kube/load_annotation.h): the writer's format, the one
// decoder every reader uses, and the one staleness rule.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kube/load_annotation.h"

namespace weft::kube {
namespace {

using namespace std::chrono_literals;

TimePoint at(const char* text) { return parse_rfc3339(text).value(); }

TEST(LoadAnnotation, EncodesTheCompactForm) {
  LoadAnnotation l{.cpu = 0.374, .memory = 0.5249, .window_s = 59.6, .source = "ebpf",
                   .cpu_at = at("2026-11-23T10:00:00.7Z"), .memory_at = at("2026-11-23T10:00:00Z")};
  auto j = nlohmann::json::parse(encode_load_annotation(l));
  EXPECT_EQ(j, nlohmann::json::parse(
                   R"({"cpu":0.37,"memory":0.52,"window_s":60,"source":"ebpf","at":"2026-11-23T10:00:00Z"})"));
  l.memory_at = at("2026-11-23T09:59:30Z");
  j = nlohmann::json::parse(encode_load_annotation(l));
  EXPECT_FALSE(j.contains("at"));
  EXPECT_EQ(j["cpu_at"], "2026-11-23T10:00:00Z");
  EXPECT_EQ(j["memory_at"], "2026-11-23T09:59:30Z");
}

TEST(LoadAnnotation, DecodesWhatTheWriterWrites) {
  LoadAnnotation l{.cpu = 0.3, .memory = 0.5, .window_s = 60, .source = "procfs",
                   .cpu_at = at("2026-11-23T10:00:00Z"), .memory_at = at("2026-11-23T09:59:00Z")};
  auto back = decode_load_annotation(encode_load_annotation(l));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_DOUBLE_EQ(back->cpu, 0.3);
  EXPECT_DOUBLE_EQ(back->memory, 0.5);
  EXPECT_DOUBLE_EQ(back->window_s, 60);
  EXPECT_EQ(back->source, "procfs");
  EXPECT_EQ(back->cpu_at, l.cpu_at);
  EXPECT_EQ(back->memory_at, l.memory_at);
  EXPECT_EQ(back->oldest(), l.memory_at);
}

TEST(LoadAnnotation, OptionalKeysAndRoundingNoise) {
  auto d = decode_load_annotation(R"({"cpu":1.03,"memory":0,"at":"2026-11-23T10:00:00Z","future_key":[1]})");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d->cpu, 1.0);   // above 1 only by rounding: read as 1
  EXPECT_EQ(d->window_s, 0);
  EXPECT_EQ(d->source, "");
  auto split = decode_load_annotation(
      R"({"cpu":0.1,"memory":0.2,"at":"2026-11-23T10:00:00Z","memory_at":"2026-11-23T09:00:00Z"})");
  ASSERT_TRUE(split.ok()) << split.message();
  EXPECT_EQ(split->cpu_at, at("2026-11-23T10:00:00Z"));
  EXPECT_EQ(split->memory_at, at("2026-11-23T09:00:00Z"));
}

TEST(LoadAnnotation, BadValuesAreErrorsNamingTheKey) {
  struct Case {
    const char* text;
    const char* names;
  } cases[] = {
      {"", "not JSON"},
      {"{not json", "not JSON"},
      {"[0.3,0.5]", "not a JSON object"},
      {R"({"memory":0.5,"at":"2026-11-23T10:00:00Z"})", "cpu: missing"},
      {R"({"cpu":0.5,"at":"2026-11-23T10:00:00Z"})", "memory: missing"},
      {R"({"cpu":"0.5","memory":0.5,"at":"2026-11-23T10:00:00Z"})", "cpu: \"0.5\" is not a number"},
      {R"({"cpu":-0.01,"memory":0.5,"at":"2026-11-23T10:00:00Z"})", "cpu: -0.01 is not a ratio"},
      {R"({"cpu":0.5,"memory":1.2,"at":"2026-11-23T10:00:00Z"})", "memory: 1.2 is not a ratio"},
      {R"({"cpu":0.5,"memory":0.5})", "at: missing"},
      {R"({"cpu":0.5,"memory":0.5,"cpu_at":"2026-11-23T10:00:00Z"})", "memory has no measurement time"},
      {R"({"cpu":0.5,"memory":0.5,"at":"2026-02-31T10:00:00Z"})", "at: time '2026-02-31T10:00:00Z'"},
      {R"({"cpu":0.5,"memory":0.5,"at":1764000000})", "at: 1764000000 is not an RFC 3339 time"},
      {R"({"cpu":0.5,"memory":0.5,"at":"2026-11-23T10:00:00Z","window_s":-1})", "window_s"},
      {R"({"cpu":0.5,"memory":0.5,"at":"2026-11-23T10:00:00Z","source":7})", "source: 7 is not a string"},
  };
  for (const auto& c : cases) {
    auto d = decode_load_annotation(c.text);
    ASSERT_FALSE(d.ok()) << c.text;
    EXPECT_NE(d.message().find(c.names), std::string::npos) << c.text << " -> " << d.message();
  }
}

TEST(LoadAnnotation, StaleIsTooOldOrTooFarInTheFuture) {
  auto l = decode_load_annotation(
      R"({"cpu":0.1,"memory":0.2,"cpu_at":"2026-11-23T10:00:00Z","memory_at":"2026-11-23T09:56:00Z"})");
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(check_load_fresh(*l, at("2026-11-23T10:00:30Z"), kDefaultLoadMaxAge).ok());
  EXPECT_TRUE(check_load_fresh(*l, at("2026-11-23T10:01:00Z"), 5min).ok());   // exactly max age: fresh
  auto old = check_load_fresh(*l, at("2026-11-23T10:01:01Z"), 5min);
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.message().find("stale: memory measured 2026-11-23T09:56:00Z, 5m1s ago, older than 5m0s"),
            std::string::npos)
      << old.message();
  auto future = check_load_fresh(*l, at("2026-11-23T09:50:00Z"), 5min);
  ASSERT_FALSE(future.ok());
  EXPECT_NE(future.message().find("cpu measured 2026-11-23T10:00:00Z, 10m0s in the future"), std::string::npos)
      << future.message();
  // Centuries apart: no overflow, still stale.
  LoadAnnotation ancient{.cpu_at = at("1678-01-01T00:00:00Z"), .memory_at = at("1678-01-01T00:00:00Z")};
  EXPECT_FALSE(check_load_fresh(ancient, at("2261-01-01T00:00:00Z"), 5min).ok());
  EXPECT_FALSE(check_load_fresh(ancient, at("2261-01-01T00:00:00Z"), Duration::max()).ok());
}

}  // namespace
}  // namespace weft::kube
