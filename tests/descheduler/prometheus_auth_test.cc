// The descheduler's Prometheus client against local endpoints that demand credentials:
// a bearer token read from a file, basic auth, and HTTPS verified with a CA file.
#include <gtest/gtest.h>

#include <httplib.h>

#include <thread>
#include <type_traits>

#include "descheduler/app/prometheus_load.h"
#include "tests/descheduler/fake_prometheus.h"
#include "tests/support/process.h"

namespace weft::descheduler {
namespace {

using weft::testing::TempDir;
using weft::testing::write_file;

// One node's cpu and memory readings, their sample times, and one pod's usage, whatever
// the query: enough for a whole fetch.
std::string answer(const std::string& query) {
  bool per_pod = query.find("weft_pod_") != std::string::npos;
  bool newest = query.find("timestamp(") != std::string::npos;
  std::string metric = per_pod ? R"({"namespace":"team","pod":"burns","node":"n1"})" : R"({"node":"n1"})";
  std::string value = newest ? "1700000000" : (per_pod ? "3.5" : "0.5");
  return R"({"status":"success","data":{"resultType":"vector","result":[{"metric":)" + metric +
         R"(,"value":[1700000000,")" + value + R"("]}]}})";
}

// Serves /api/v1/query when the request carries `authorization` exactly; 401 otherwise.
FakePrometheus<>::Handler demanding(std::string authorization) {
  return [authorization](const httplib::Request& req, httplib::Response& res) {
    if (req.get_header_value("Authorization") != authorization) {
      res.status = 401;
      res.set_content("unauthorized", "text/plain");
      return;
    }
    res.set_content(answer(req.get_param_value("query")), "application/json");
  };
}

TimePoint at() { return TimePoint(std::chrono::seconds(1700000000)); }

TEST(PrometheusAuth, BearerTokenFromAFile) {
  TempDir dir;
  write_file(dir.file("token"), "s3cret\n");
  FakePrometheus<httplib::Server> prom(demanding("Bearer s3cret"));
  const std::string url = prom.url();
  MetricsArgs m;
  LoadReport without = PrometheusLoad(url, m).fetch(at());
  EXPECT_NE(without.source_error.find("HTTP 401"), std::string::npos) << without.source_error;
  EXPECT_NE(without.source_error.find("credentials"), std::string::npos) << without.source_error;
  m.auth.bearer_token_file = dir.file("token");
  LoadReport with = PrometheusLoad(url, m).fetch(at());
  ASSERT_TRUE(with.source_error.empty()) << with.source_error;
  EXPECT_DOUBLE_EQ(with.nodes.at("n1").cpu, 0.5);
  ASSERT_TRUE(with.pods.count("team/burns")) << with.pods_error;
  EXPECT_DOUBLE_EQ(*with.pods.at("team/burns").cpu_cores, 3.5);
  // The file is read per query: a rotated token is used at once; a missing file is named.
  write_file(dir.file("token"), "rotated");
  EXPECT_NE(PrometheusLoad(url, m).fetch(at()).source_error.find("HTTP 401"), std::string::npos);
  m.auth.bearer_token_file = dir.file("absent");
  EXPECT_NE(PrometheusLoad(url, m).fetch(at()).source_error.find(dir.file("absent") + ": cannot be read"),
            std::string::npos);
}

TEST(PrometheusAuth, BasicAuth) {
  TempDir dir;
  // "weft:pa55" in base64.
  FakePrometheus<httplib::Server> prom(demanding("Basic d2VmdDpwYTU1"));
  write_file(dir.file("password"), "pa55\n");
  MetricsArgs m;
  m.auth.username = "weft";
  m.auth.password_file = dir.file("password");
  const std::string url = prom.url();
  LoadReport r = PrometheusLoad(url, m).fetch(at());
  ASSERT_TRUE(r.source_error.empty()) << r.source_error;
  EXPECT_EQ(r.nodes.size(), 1u);
  m.auth.username = "other";
  EXPECT_NE(PrometheusLoad(url, m).fetch(at()).source_error.find("HTTP 401"), std::string::npos);
}

TEST(PrometheusAuth, HttpsWithACaFile) {
  TempDir dir;
  auto [code, out] = weft::testing::run_command(
      {"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
       dir.file("tls.key"), "-out", dir.file("tls.crt"), "-days", "1", "-subj", "/CN=prometheus", "-addext",
       "subjectAltName=IP:127.0.0.1"},
      std::chrono::seconds(30));
  ASSERT_EQ(code, 0) << out;
  write_file(dir.file("token"), "t");
  FakePrometheus<httplib::SSLServer> prom(demanding("Bearer t"), dir.file("tls.crt").c_str(), dir.file("tls.key").c_str());
  const std::string url = prom.url();
  MetricsArgs m;
  m.auth.bearer_token_file = dir.file("token");
  // Not trusted by the system's CAs: refused, and the error says what to set.
  LoadReport untrusted = PrometheusLoad(url, m).fetch(at());
  EXPECT_NE(untrusted.source_error.find("CA file"), std::string::npos) << untrusted.source_error;
  m.auth.ca_file = dir.file("tls.crt");
  LoadReport trusted = PrometheusLoad(url, m).fetch(at());
  ASSERT_TRUE(trusted.source_error.empty()) << trusted.source_error;
  EXPECT_DOUBLE_EQ(trusted.nodes.at("n1").memory, 0.5);
  m.auth.ca_file = dir.file("missing.crt");
  EXPECT_NE(PrometheusLoad(url, m).fetch(at()).source_error.find("missing.crt: cannot be read"), std::string::npos);
}

}  // namespace
}  // namespace weft::descheduler
