// HTTPS to an in-process TLS server with certificates made by the openssl tool: CA
// verification, client certificates, insecure-skip-tls-verify, and clear failures.
#include <gtest/gtest.h>

#include <httplib.h>

#include <thread>

#include "kube/client/base64.h"
#include "kube/client/client.h"
#include "tests/support/process.h"

namespace weft::kube {
namespace {

using weft::testing::read_file;
using weft::testing::run_command;
using weft::testing::TempDir;

// Makes ca.crt/ca.key, server.crt/key (SAN 127.0.0.1) and client.crt/key signed by the CA,
// and other-ca.crt, an unrelated CA.
std::string make_pki(const TempDir& d) {
  auto run = [&](std::vector<std::string> argv) -> std::string {
    auto [code, out] = run_command(argv, std::chrono::seconds(30));
    return code == 0 ? "" : "openssl failed: " + out;
  };
  auto ec = std::vector<std::string>{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"};
  auto req = [&](const std::string& name, const std::string& cn) {
    std::vector<std::string> a = {"openssl", "req"};
    a.insert(a.end(), ec.begin(), ec.end());
    a.insert(a.end(), {"-keyout", d.file(name + ".key"), "-out", d.file(name + ".csr"), "-subj", "/CN=" + cn});
    return run(a);
  };
  auto sign = [&](const std::string& name, const std::string& ext) {
    weft::testing::write_file(d.file(name + ".ext"), ext);
    return run({"openssl", "x509", "-req", "-in", d.file(name + ".csr"), "-CA", d.file("ca.crt"), "-CAkey",
                d.file("ca.key"), "-CAcreateserial", "-out", d.file(name + ".crt"), "-days", "1", "-extfile",
                d.file(name + ".ext")});
  };
  for (const std::string ca : {"ca", "other-ca"}) {
    std::vector<std::string> a = {"openssl", "req", "-x509"};
    a.insert(a.end(), ec.begin(), ec.end());
    a.insert(a.end(), {"-keyout", d.file(ca + ".key"), "-out", d.file(ca + ".crt"), "-days", "1", "-subj", "/CN=" + ca});
    if (auto e = run(a); !e.empty()) return e;
  }
  if (auto e = req("server", "kube-apiserver"); !e.empty()) return e;
  if (auto e = sign("server", "subjectAltName=IP:127.0.0.1\n"); !e.empty()) return e;
  if (auto e = req("client", "weft-agent"); !e.empty()) return e;
  if (auto e = sign("client", "extendedKeyUsage=clientAuth\n"); !e.empty()) return e;
  return "";
}

class TlsServer {
 public:
  TlsServer(const TempDir& d, bool require_client_cert)
      : server_(d.file("server.crt").c_str(), d.file("server.key").c_str(),
                require_client_cert ? d.file("ca.crt").c_str() : nullptr) {
    server_.Get("/api/v1/nodes/n1", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"kind":"Node","metadata":{"name":"n1"}})", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~TlsServer() {
    server_.stop();
    thread_.join();
  }
  bool valid() const { return server_.is_valid(); }
  int port() const { return port_; }

 private:
  httplib::SSLServer server_;
  int port_ = 0;
  std::thread thread_;
};

std::string kubeconfig(int port, const std::string& cluster_extra, const std::string& user_extra) {
  return "current-context: t\ncontexts:\n- name: t\n  context: {cluster: c, user: u}\nclusters:\n- name: c\n"
         "  cluster:\n    server: https://127.0.0.1:" +
         std::to_string(port) + "\n" + cluster_extra + "users:\n- name: u\n  user:\n" + user_extra +
         "    token: unused\n";
}

Result<nlohmann::json> get_node(const std::string& kubeconfig_text) {
  auto cfg = parse_kubeconfig(kubeconfig_text, "/tls-test");
  if (!cfg) return cfg.error();
  ClientOptions o;
  o.timeout = std::chrono::milliseconds(3000);
  o.max_attempts = 2;
  o.backoff.initial = std::chrono::milliseconds(10);
  auto client = Client::from_config(*cfg, o);
  if (!client) return client.error();
  return (*client)->get(resources::nodes(), "", "n1");
}

class KubeClientTls : public ::testing::Test {
 protected:
  void SetUp() override {
    WEFT_SKIP_UNLESS(weft::testing::need_tools({"openssl"}));
    auto err = make_pki(dir_);
    ASSERT_EQ(err, "");
  }
  std::string data(const std::string& file) { return base64_encode(read_file(dir_.file(file))); }
  TempDir dir_;
};

TEST_F(KubeClientTls, VerifiesTheServerAgainstTheConfiguredCa) {
  TlsServer server(dir_, false);
  ASSERT_TRUE(server.valid());
  auto ok = get_node(kubeconfig(server.port(), "    certificate-authority-data: " + data("ca.crt") + "\n", ""));
  ASSERT_TRUE(ok) << ok.message();
  EXPECT_EQ((*ok)["metadata"]["name"], "n1");

  auto wrong = get_node(kubeconfig(server.port(), "    certificate-authority-data: " + data("other-ca.crt") + "\n", ""));
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.message().find("GET /api/v1/nodes/n1: cannot reach API server https://127.0.0.1:" +
                                 std::to_string(server.port())),
            std::string::npos)
      << wrong.message();
  EXPECT_NE(wrong.message().find("not trusted"), std::string::npos) << wrong.message();

  auto insecure = get_node(kubeconfig(server.port(), "    insecure-skip-tls-verify: true\n", ""));
  ASSERT_TRUE(insecure) << insecure.message();
}

TEST_F(KubeClientTls, PresentsClientCertificateFromFilesOrData) {
  TlsServer server(dir_, true);
  ASSERT_TRUE(server.valid());
  const std::string ca = "    certificate-authority: " + dir_.file("ca.crt") + "\n";
  auto with_data = get_node(kubeconfig(server.port(), ca,
                                       "    client-certificate-data: " + data("client.crt") +
                                           "\n    client-key-data: " + data("client.key") + "\n"));
  ASSERT_TRUE(with_data) << with_data.message();
  auto with_files = get_node(kubeconfig(server.port(), ca,
                                        "    client-certificate: " + dir_.file("client.crt") +
                                            "\n    client-key: " + dir_.file("client.key") + "\n"));
  ASSERT_TRUE(with_files) << with_files.message();
  auto without = get_node(kubeconfig(server.port(), ca, ""));
  ASSERT_FALSE(without);
  EXPECT_NE(without.message().find("cannot reach API server https://127.0.0.1"), std::string::npos)
      << without.message();
}

TEST_F(KubeClientTls, BrokenPemIsReportedBeforeAnyRequest) {
  auto bad = get_node(kubeconfig(1, "    certificate-authority-data: " +
                                        base64_encode("-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n") +
                                        "\n",
                                 ""));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find("kubeconfig /tls-test (context t): certificate-authority (certificate-authority-data): "
                               "no PEM certificate found"),
            std::string::npos)
      << bad.message();
  auto bad_key = get_node(kubeconfig(1, "", "    client-certificate-data: " + data("client.crt") +
                                                "\n    client-key-data: " +
                                                base64_encode("-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n") +
                                                "\n"));
  ASSERT_FALSE(bad_key);
  EXPECT_NE(bad_key.message().find("client-key: cannot read private key"), std::string::npos) << bad_key.message();
}

}  // namespace
}  // namespace weft::kube
