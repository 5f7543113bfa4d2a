#include "collectors/load/histogram.h"

#include <gtest/gtest.h>

namespace weft::load {
namespace {

TEST(Histogram, BucketBoundsArePowersOfTwoNanoseconds) {
  EXPECT_DOUBLE_EQ(bucket_lower_s(0), 0.0);
  EXPECT_DOUBLE_EQ(bucket_upper_s(0), 2e-9);
  EXPECT_DOUBLE_EQ(bucket_lower_s(10), 1024e-9);
  EXPECT_DOUBLE_EQ(bucket_upper_s(10), 2048e-9);
}

TEST(Histogram, EmptyHasNoQuantile) {
  EXPECT_FALSE(quantile_s(std::vector<uint64_t>(48, 0), 0.99).has_value());
  EXPECT_FALSE(quantile_s({}, 0.5).has_value());
}

TEST(Histogram, QuantileInterpolatesInsideTheBucket) {
  std::vector<uint64_t> b(48, 0);
  b[10] = 100;  // all waits in [1024, 2048) ns
  EXPECT_NEAR(*quantile_s(b, 0.5), 1536e-9, 1e-12);
  EXPECT_NEAR(*quantile_s(b, 1.0), 2048e-9, 1e-12);
}

TEST(Histogram, P99FindsTheTail) {
  std::vector<uint64_t> b(48, 0);
  b[12] = 980;  // ~4 us
  b[20] = 20;   // ~1 ms: 2 % of waits
  double p50 = *quantile_s(b, 0.5);
  double p99 = *quantile_s(b, 0.99);
  EXPECT_GE(p50, bucket_lower_s(12));
  EXPECT_LT(p50, bucket_upper_s(12));
  EXPECT_GE(p99, bucket_lower_s(20));
  EXPECT_LT(p99, bucket_upper_s(20));
}

TEST(Histogram, DeltaIgnoresCountersThatWentBack) {
  auto d = bucket_delta({5, 10, 3}, {7, 4, 3});
  EXPECT_EQ(d, (std::vector<uint64_t>{2, 0, 0}));
  EXPECT_EQ(bucket_delta({}, {1, 2}), (std::vector<uint64_t>{1, 2}));
}

}  // namespace
}  // namespace weft::load
