#include "kube/quantity.h"
#include "kube/scenario.h"

#include <gtest/gtest.h>

namespace weft::kube {
namespace {

int64_t q(const char* s) {
  auto r = parse_quantity_milli(s);
  EXPECT_TRUE(r.ok()) << s << ": " << (r.ok() ? "" : r.message());
  return r.ok() ? *r : -1;
}

TEST(Quantity, DecimalAndBinarySuffixes) {
  EXPECT_EQ(q("100m"), 100);
  EXPECT_EQ(q("2"), 2000);
  EXPECT_EQ(q("1.5"), 1500);
  EXPECT_EQ(q("0.1"), 100);
  EXPECT_EQ(q("1k"), 1000000);
  EXPECT_EQ(q("1Ki"), 1024000);
  EXPECT_EQ(q("4Gi"), 4LL * 1024 * 1024 * 1024 * 1000);
  EXPECT_EQ(q("1e3"), 1000000);
  EXPECT_EQ(q("1E-3"), 1);
  EXPECT_EQ(q("500M"), 500000000000LL);
  EXPECT_EQ(q("+3"), 3000);
  EXPECT_EQ(q("-250m"), -250);
  EXPECT_EQ(q(" 8 "), 8000);
}

TEST(Quantity, RoundsUpBelowMilli) {
  EXPECT_EQ(q("1n"), 1);      // 0.000000001 rounds up to one milli-unit
  EXPECT_EQ(q("1500u"), 2);   // 1.5m rounds up to 2m
  EXPECT_EQ(q("0"), 0);
}

TEST(Quantity, InvalidIsAnErrorNamingTheText) {
  for (const char* bad : {"", "abc", "1.2.3", "12Q", "1e", "Gi", "1ee3", "--1", "1 Gi"}) {
    auto r = parse_quantity_milli(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.message().find("invalid quantity"), std::string::npos) << r.message();
  }
  EXPECT_FALSE(parse_quantity_milli("99999999999999999999Ei").ok());
}

TEST(Quantity, JsonNumbersAndResourceLists) {
  EXPECT_EQ(*parse_quantity_milli(nlohmann::json(4)), 4000);
  EXPECT_EQ(*parse_quantity_milli(nlohmann::json(0.5)), 500);
  auto list = parse_resource_list(nlohmann::json{{"cpu", "2"}, {"memory", "1Gi"}, {"nvidia.com/gpu", 8}});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->at("cpu"), 2000);
  EXPECT_EQ(list->at("nvidia.com/gpu"), 8000);
  auto bad = parse_resource_list(nlohmann::json{{"cpu", "two"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("resource 'cpu'"), std::string::npos) << bad.message();
}

TEST(Quantity, ArithmeticAndFit) {
  ResourceList a{{"cpu", 1000}, {"memory", 5000}};
  ResourceList b{{"cpu", 500}};
  add_to(a, b);
  EXPECT_EQ(a["cpu"], 1500);
  subtract_from(a, b);
  EXPECT_EQ(a["cpu"], 1000);
  EXPECT_TRUE(fits({{"cpu", 1000}}, a));
  EXPECT_FALSE(fits({{"cpu", 1001}}, a));
  EXPECT_EQ(first_shortage({{"nvidia.com/gpu", 1000}}, a), "nvidia.com/gpu");
  EXPECT_TRUE(fits({{"nvidia.com/gpu", 0}}, a));
  auto m = max_of({{"cpu", 100}, {"memory", 9}}, {{"cpu", 300}});
  EXPECT_EQ(m["cpu"], 300);
  EXPECT_EQ(m["memory"], 9);
  auto j = to_json({{"cpu", 1500}, {"memory", 2048000}});
  EXPECT_DOUBLE_EQ(j["cpu"].get<double>(), 1.5);
  EXPECT_EQ(j["memory"].get<int64_t>(), 2048);
  EXPECT_EQ(format_quantity(1500), "1500m");
  EXPECT_EQ(format_quantity(3000), "3");
}

}  // namespace
// Found by fuzz/quantity_fuzz.cc: 36 digits with a large suffix overflowed the 128-bit
// intermediate before the range check.
TEST(Quantity, HugeMantissaTimesLargeSuffixIsTooLarge) {
  for (const char* q : {"444444144441944444444444594444444444E", "999999999999999999999999999999999999E",
                        "999999999999999999999999999999999999e30", "99999999999999999999P"}) {
    auto r = parse_quantity_milli(q);
    ASSERT_FALSE(r.ok()) << q;
    EXPECT_NE(r.message().find("too large"), std::string::npos) << r.message();
  }
  EXPECT_EQ(*parse_quantity_milli("9000000000000000"), 9000000000000000000LL);
}

// A JSON number beyond double's range is an error, not an exception (found by fuzz/prometheus_fuzz.cc).
TEST(Quantity, ScenarioJsonWithAnOverflowingNumberIsAnError) {
  auto r = load_objects_text(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"x":20e2311})", "n.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("n.json"), std::string::npos) << r.message();
}

}  // namespace weft::kube
