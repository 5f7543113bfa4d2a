// The client against kube-lite's injected 500s/429s when retries run out: the call ends
// with one line naming verb, path and HTTP status, and every attempt is one request
// (counted by the client and by kube-lite's request log: no hidden retries, no loop).
#include <gtest/gtest.h>

#include <map>

#include "kube/client/client.h"
#include "tests/support/kube_lite.h"

namespace weft::kube_lite {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using weft::testing::KubeLite;
namespace res = weft::kube::resources;

struct Outcome {
  int calls = 0, ok = 0, failed = 0;
  std::map<int, int> failed_by_status;
  std::string example;   // one failure's text, for the log
};

// Creates, patches, gets and lists Nodes named prefix<i>; checks each failure's text.
Outcome run_calls(kube::Client& client, const std::string& prefix, int calls, const std::string& gave_up) {
  Outcome out;
  for (int i = 0; i < calls; ++i) {
    std::string name = prefix + std::to_string(i - i % 4);
    Result<json> r = make_error("unset");
    std::string verb = "GET", path = "/api/v1/nodes/" + name;
    switch (i % 4) {
      case 0:
        verb = "POST";
        path = "/api/v1/nodes";
        r = client.create(res::nodes(), "", {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}});
        if (!r && r.error().code == 409) r = json::object();   // an earlier attempt's write took effect
        break;
      case 1:
        verb = "PATCH";
        r = client.patch(res::nodes(), "", name, {{"metadata", {{"labels", {{"x", std::to_string(i)}}}}}});
        break;
      case 2:
        r = client.get(res::nodes(), "", name);
        break;
      default: {
        path = "/api/v1/nodes";
        auto l = client.list(res::nodes(), "", kube::ListOptions{});   // one page: one request per attempt
        r = l ? Result<json>(json::object()) : Result<json>(l.error());
      }
    }
    ++out.calls;
    if (r) {
      ++out.ok;
      continue;
    }
    // A call that failed on its own terms (a 404 after a failed create) is not what this
    // test is about; only exhausted retries on injected faults are.
    int code = r.error().code;
    if (code == 404) continue;
    ++out.failed;
    ++out.failed_by_status[code];
    const std::string& m = r.message();
    if (out.example.empty()) out.example = m;
    EXPECT_TRUE(code == 500 || code == 429) << m;
    EXPECT_EQ(m.rfind(verb + " " + path + ": HTTP " + std::to_string(code), 0), 0u) << "verb, path, status: " << m;
    EXPECT_NE(m.find(gave_up), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
  return out;
}

size_t node_requests(const KubeLite& api) {
  size_t n = 0;
  for (const auto& r : api.requests())
    if (r.value("path", "").rfind("/api/v1/nodes", 0) == 0) ++n;
  return n;
}

void print(const char* what, const Outcome& o, uint64_t requests) {
  std::printf("%s: %d calls, %d ok, %d failed (", what, o.calls, o.ok, o.failed);
  for (auto [s, n] : o.failed_by_status) std::printf(" HTTP %d: %d", s, n);
  std::printf(" ), %llu HTTP requests; e.g. %s\n", static_cast<unsigned long long>(requests), o.example.c_str());
}

TEST(KubeLiteFaults, CallsThatExhaustTheirRetriesNameVerbPathAndStatus) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  // Retry-After: 0 so only the client's own policy decides when to give up.
  KubeLite api({.fail_rate = 0.3, .extra_args = {"--retry-after", "0"}});
  ASSERT_EQ(api.error(), "");
  const int calls = 200;

  // Two attempts per call: a call fails when both draw a fault (p = 0.09).
  auto few = weft::testing::test_client_options();
  few.max_attempts = 2;
  auto client = api.new_client(few);
  Outcome a = run_calls(*client, "a", calls, "(gave up after 2 attempts)");
  uint64_t requests_a = client->request_count();
  print("2 attempts", a, requests_a);
  EXPECT_GT(a.failed, 0) << "no call exhausted its retries";
  EXPECT_GT(a.ok, calls / 2);
  // No busy loop: at most two requests per call, and kube-lite saw exactly those.
  EXPECT_LE(requests_a, static_cast<uint64_t>(calls * 2));
  EXPECT_GE(requests_a, static_cast<uint64_t>(calls + a.failed));
  EXPECT_EQ(node_requests(api), requests_a);

  // A deadline shorter than the first backoff: one attempt, then the call gives up.
  auto hurried = weft::testing::test_client_options();
  hurried.timeout = milliseconds(400);
  hurried.backoff = kube::BackoffPolicy{milliseconds(500), 2.0, milliseconds(500), 0.0};
  auto late = api.new_client(hurried);
  Outcome b = run_calls(*late, "b", calls, "the next retry would pass the 400ms deadline");
  uint64_t requests_b = late->request_count();
  print("400 ms deadline", b, requests_b);
  EXPECT_GT(b.failed, 0) << "no call ran out of time";
  EXPECT_EQ(requests_b, static_cast<uint64_t>(b.calls));   // one request per call
  EXPECT_EQ(node_requests(api), requests_a + requests_b);
}

}  // namespace
}  // namespace weft::kube_lite
