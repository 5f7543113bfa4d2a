#include <gtest/gtest.h>

#include "kube/client/rate_limit.h"

namespace weft::kube {
namespace {

using std::chrono::milliseconds;

TEST(KubeClientTokenBucket, BurstThenQpsSpacing) {
  auto t0 = Clock::now();
  TokenBucket bucket(10, 3, t0);  // 10/s: one token every 100ms
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.reserve(t0), Clock::duration::zero()) << i;
  // Fourth and fifth at the same instant queue up behind each other.
  EXPECT_NEAR(std::chrono::duration<double>(bucket.reserve(t0)).count(), 0.1, 1e-6);
  EXPECT_NEAR(std::chrono::duration<double>(bucket.reserve(t0)).count(), 0.2, 1e-6);
  // 1s later 10 tokens accrued, capped at the burst of 3 after paying back the 2 owed.
  auto t1 = t0 + milliseconds(1000);
  EXPECT_EQ(bucket.reserve(t1), Clock::duration::zero());
  EXPECT_EQ(bucket.reserve(t1), Clock::duration::zero());
  EXPECT_EQ(bucket.reserve(t1), Clock::duration::zero());
  EXPECT_GT(bucket.reserve(t1), Clock::duration::zero());
}

TEST(KubeClientTokenBucket, CancelGivesTheTokenBackAndZeroQpsIsUnlimited) {
  auto t0 = Clock::now();
  TokenBucket bucket(1, 1, t0);
  EXPECT_EQ(bucket.reserve(t0), Clock::duration::zero());
  EXPECT_GT(bucket.reserve(t0), Clock::duration::zero());
  bucket.cancel_reservation();
  EXPECT_NEAR(std::chrono::duration<double>(bucket.reserve(t0)).count(), 1.0, 1e-6);
  TokenBucket open(0, 1, t0);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(open.reserve(t0), Clock::duration::zero());
}

TEST(KubeClientTokenBucket, SustainedRateMatchesQps) {
  auto t = Clock::now();
  TokenBucket bucket(50, 5, t);
  // 1000 reservations spaced by their own waits take (1000-5)/50 s of simulated time.
  auto start = t;
  for (int i = 0; i < 1000; ++i) t += bucket.reserve(t);
  EXPECT_NEAR(std::chrono::duration<double>(t - start).count(), 995.0 / 50.0, 0.05);
}

TEST(KubeClientBackoff, ExponentialCappedWithJitterBounds) {
  BackoffPolicy p{milliseconds(100), 2.0, milliseconds(1000), 0.5};
  EXPECT_EQ(backoff_delay(p, 0, 0.0), milliseconds(100));
  EXPECT_EQ(backoff_delay(p, 1, 0.0), milliseconds(200));
  EXPECT_EQ(backoff_delay(p, 3, 0.0), milliseconds(800));
  EXPECT_EQ(backoff_delay(p, 4, 0.0), milliseconds(1000));   // capped
  EXPECT_EQ(backoff_delay(p, 40, 0.0), milliseconds(1000));  // no overflow
  EXPECT_EQ(backoff_delay(p, 0, 1.0), milliseconds(150));
  EXPECT_EQ(backoff_delay(p, 9, 0.999999), milliseconds(1499));
  Jitter j(42);
  for (int i = 0; i < 1000; ++i) {
    auto d = backoff_delay(p, 2, j.next());
    ASSERT_GE(d, milliseconds(400));
    ASSERT_LT(d, milliseconds(600));
  }
}

TEST(KubeClientRetryAfter, SecondsAndHttpDate) {
  EXPECT_EQ(parse_retry_after("3"), milliseconds(3000));
  EXPECT_EQ(parse_retry_after("0"), milliseconds(0));
  EXPECT_FALSE(parse_retry_after(""));
  EXPECT_FALSE(parse_retry_after("soon"));
  EXPECT_FALSE(parse_retry_after("-1"));
  std::tm tm{};
  strptime("Wed, 21 Oct 2015 07:28:00 GMT", "%a, %d %b %Y %H:%M:%S GMT", &tm);
  auto at = std::chrono::system_clock::from_time_t(timegm(&tm));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", at - std::chrono::seconds(5)), milliseconds(5000));
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", at + std::chrono::seconds(5)), milliseconds(0));
}

}  // namespace
}  // namespace weft::kube
