// RFC 3339 timestamps (kube/time.h): what the API writes and what weft writes.
#include <gtest/gtest.h>

#include "kube/time.h"

namespace weft::kube {
namespace {

TEST(Time, Rfc3339ParseAndFormat) {
  auto a = parse_rfc3339("2026-11-23T10:00:00Z");
  auto b = parse_rfc3339("2026-11-23T12:00:00.500+02:00");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(*b - *a).count(), 500);
  EXPECT_EQ(format_rfc3339(*a), "2026-11-23T10:00:00Z");
  EXPECT_FALSE(parse_rfc3339("2026-11-23 10:00").ok());
  EXPECT_FALSE(parse_rfc3339("2026-11-23T10:00:00").ok());
  auto c = parse_rfc3339("2026-11-23t09:30:00.25-00:30");
  ASSERT_TRUE(c.ok()) << c.message();
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(*c - *a).count(), 250);
  EXPECT_EQ(format_rfc3339(*parse_rfc3339("2024-02-29T23:59:59Z")), "2024-02-29T23:59:59Z");
  for (const char* bad : {"2026-11-23T10:00:00Zx", "2026-13-01T00:00:00Z", "2026-11-23T10:00:00+2:00",
                          "2026-11-23T10:00:00.Z", "26-11-23T10:00:00Z", "2026-11-23T24:00:00Z", ""})
    EXPECT_FALSE(parse_rfc3339(bad).ok()) << "'" << bad << "'";
}

// Found by fuzz/rfc3339_fuzz.cc: a NUL byte passed as any separator.
TEST(Time, NulByteIsNoSeparator) {
  using namespace std::string_literals;
  for (const std::string& bad : {"1905-02\0" "23t09:30:00.25-00:30"s, "2026\0" "11-23T10:00:00Z"s, "2026-11-23\0" "10:00:00Z"s,
                                 "2026-11-23T10:00:00+02\0" "00"s})
    EXPECT_FALSE(parse_rfc3339(bad).ok());
}

// Found by fuzz/rfc3339_fuzz.cc: before 1970 a fraction rounded the second up.
TEST(Time, FormatBefore1970IsTheSecondBelow) {
  auto t = parse_rfc3339("1900-01-21T00:30:00.5-00:30");
  ASSERT_TRUE(t.ok()) << t.message();
  EXPECT_EQ(format_rfc3339(*t), "1900-01-21T01:00:00Z");
  EXPECT_EQ(format_rfc3339(*parse_rfc3339("1969-12-31T23:59:59.999Z")), "1969-12-31T23:59:59Z");
}

// weft.dev/load annotations carry the agent's own stamps: UTC to the second.
TEST(Time, FormatIsUtcToTheSecond) {
  const auto t = std::chrono::system_clock::from_time_t(1'800'000'000);
  EXPECT_EQ(format_rfc3339(t), "2027-01-15T08:00:00Z");
  EXPECT_EQ(format_rfc3339(t + std::chrono::milliseconds(999)), "2027-01-15T08:00:00Z");
  EXPECT_EQ(parse_rfc3339("2027-01-15T09:00:00+01:00").value(), t);
  EXPECT_EQ(parse_rfc3339("2027-01-15T08:00:00.25Z").value(), t + std::chrono::milliseconds(250));
  auto bad = parse_rfc3339("yesterday");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("'yesterday'"), std::string::npos) << bad.message();
}

// Dates that do not exist are refused, as Go's time.Parse (the API server) refuses them.
TEST(Time, CalendarDatesAreValidated) {
  for (const char* bad : {"2026-02-31T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "1900-02-29T00:00:00Z",
                          "2026-11-00T00:00:00Z", "2026-11-23T10:00:60Z", "2026-11-23T10:00:00+24:00",
                          "2026-11-23T10:00:00+01:60", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"}) {
    auto t = parse_rfc3339(bad);
    EXPECT_FALSE(t.ok()) << "'" << bad << "' parsed";
    if (!t.ok()) {
      EXPECT_NE(t.message().find(bad), std::string::npos) << t.message();
    }
  }
  EXPECT_NE(parse_rfc3339("2026-02-31T00:00:00Z").message().find("day 31"), std::string::npos);
  for (const char* good : {"2024-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "2026-01-31T00:00:00Z", "2026-12-31T23:59:59Z",
                           "2026-04-30T00:00:00Z", "2261-12-31T23:59:59Z", "1678-01-01T00:00:00Z"})
    EXPECT_TRUE(parse_rfc3339(good).ok()) << good << ": " << parse_rfc3339(good).message();
  EXPECT_EQ(format_rfc3339(*parse_rfc3339("2000-02-29T12:00:00Z")), "2000-02-29T12:00:00Z");
}

}  // namespace
}  // namespace weft::kube
