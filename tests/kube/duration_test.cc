// Go durations (kube/duration.h): Go's time.ParseDuration grammar and Duration.String().
#include <gtest/gtest.h>

#include <cmath>

#include "kube/duration.h"

namespace weft::kube {
namespace {

using namespace std::chrono_literals;

Duration parsed(const char* text) {
  auto d = parse_duration(text);
  EXPECT_TRUE(d.ok()) << text << ": " << (d.ok() ? "" : d.message());
  return d.ok() ? *d : Duration::min();
}

TEST(Duration, ParsesGoSyntax) {
  EXPECT_EQ(parsed("0"), 0ns);
  EXPECT_EQ(parsed("-0"), 0ns);
  EXPECT_EQ(parsed("+0"), 0ns);
  EXPECT_EQ(parsed("300ms"), 300ms);
  EXPECT_EQ(parsed("1h2m3.5s"), 1h + 2min + 3500ms);
  EXPECT_EQ(parsed("-1.5h"), -90min);
  EXPECT_EQ(parsed("+5s"), 5s);
  EXPECT_EQ(parsed("2h45m"), 2h + 45min);
  EXPECT_EQ(parsed("1.5us"), 1500ns);
  EXPECT_EQ(parsed("1.5\xC2\xB5s"), 1500ns);   // micro sign
  EXPECT_EQ(parsed("1.5\xCE\xBCs"), 1500ns);   // Greek mu
  EXPECT_EQ(parsed("7ns"), 7ns);
  EXPECT_EQ(parsed(".5s"), 500ms);
  EXPECT_EQ(parsed("1.s"), 1s);
  EXPECT_EQ(parsed("1s1s"), 2s);                // Go sums repeated units
  EXPECT_EQ(parsed("0.1234567891s"), 123456789ns);   // truncated to the nanosecond
  EXPECT_EQ(parsed("1.000000000000000000001s"), 1s);
  EXPECT_EQ(parsed("2562047h47m16.854775807s"), Duration::max());
  EXPECT_EQ(parsed("-2562047h47m16.854775808s"), Duration::min());
}

TEST(Duration, RefusesWhatGoRefuses) {
  for (const char* bad : {"", "-", "+", "1.2.3s", "5", "1", "s", ".s", ".", "1 s", " 1s", "1s ", "5x", "1S", "1hh",
                          "1e3s", "0x10s", "--1s", "1s-1s", "2562047h47m16.854775808s", "9223372036854775808ns",
                          "99999999999999999999h", "3000000h", "-2562047h47m16.854775809s"}) {
    auto d = parse_duration(bad);
    EXPECT_FALSE(d.ok()) << "'" << bad << "' parsed as " << (d.ok() ? d->count() : 0);
  }
  auto e = parse_duration("1.2.3s");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.message().find("'1.2.3s'"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("missing unit"), std::string::npos) << e.message();
  EXPECT_NE(parse_duration("5x").message().find("unknown unit 'x'"), std::string::npos);
}

TEST(Duration, FormatsAsGo) {
  EXPECT_EQ(format_duration(0ns), "0s");
  EXPECT_EQ(format_duration(1ns), "1ns");
  EXPECT_EQ(format_duration(1500ns), "1.5\xC2\xB5s");
  EXPECT_EQ(format_duration(300ms), "300ms");
  EXPECT_EQ(format_duration(1500us), "1.5ms");
  EXPECT_EQ(format_duration(1s), "1s");
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(5min), "5m0s");
  EXPECT_EQ(format_duration(1h), "1h0m0s");
  EXPECT_EQ(format_duration(1h + 2min + 3500ms), "1h2m3.5s");
  EXPECT_EQ(format_duration(-90min), "-1h30m0s");
  EXPECT_EQ(format_duration(Duration::max()), "2562047h47m16.854775807s");
  EXPECT_EQ(format_duration(Duration::min()), "-2562047h47m16.854775808s");
}

TEST(Duration, RoundTrips) {
  for (Duration d : {Duration(0), Duration(1), Duration(999), Duration(1001), Duration(123456789), Duration(-42),
                     Duration(3'600'000'000'001), Duration::max(), Duration::min()})
    EXPECT_EQ(parsed(format_duration(d).c_str()), d) << format_duration(d);
}

TEST(Duration, AtLeastAndSeconds) {
  EXPECT_EQ(*parse_duration_at_least("1ms", 1ms), 1ms);
  auto low = parse_duration_at_least("500us", 1ms);
  ASSERT_FALSE(low.ok());
  EXPECT_NE(low.message().find("at least 1ms"), std::string::npos) << low.message();
  EXPECT_FALSE(parse_duration_at_least("-1s", 0ns).ok());
  EXPECT_FALSE(parse_duration_at_least("1.2.3s", 0ns).ok());
  EXPECT_EQ(*duration_from_seconds(1.5), 1500ms);
  EXPECT_EQ(*duration_from_seconds(-2), -2s);
  EXPECT_FALSE(duration_from_seconds(std::nan("")).ok());
  EXPECT_FALSE(duration_from_seconds(1e300).ok());
  EXPECT_DOUBLE_EQ(to_seconds(2500ms), 2.5);
}

}  // namespace
}  // namespace weft::kube
