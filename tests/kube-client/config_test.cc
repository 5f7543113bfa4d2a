#include "kube/client/config.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "kube/client/base64.h"
#include "tests/support/process.h"

namespace weft::kube {
namespace {

using weft::testing::TempDir;
using weft::testing::write_file;

const char* kCaPem =
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ==\n-----END CERTIFICATE-----\n";

std::string kubeconfig(const std::string& cluster_extra, const std::string& user_extra,
                       const std::string& current = "dev") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: " + current +
         "\n"
         "clusters:\n"
         "- name: c1\n"
         "  cluster:\n"
         "    server: https://10.1.2.3:6443\n" +
         cluster_extra +
         "- name: c2\n"
         "  cluster:\n"
         "    server: http://127.0.0.1:8080/prefix/\n"
         "contexts:\n"
         "- name: dev\n"
         "  context: {cluster: c1, user: u1}\n"
         "- name: local\n"
         "  context: {cluster: c2, user: \"\"}\n"
         "users:\n"
         "- name: u1\n"
         "  user:\n" +
         user_extra;
}

TEST(KubeClientKubeconfig, ReadsCurrentContextWithInlineData) {
  std::string ca = base64_encode(kCaPem);
  auto cfg = parse_kubeconfig(kubeconfig("    certificate-authority-data: " + ca + "\n", "    token: abc123\n"),
                              "/etc/kc");
  ASSERT_TRUE(cfg) << cfg.message();
  EXPECT_EQ(cfg->server.scheme, "https");
  EXPECT_EQ(cfg->server.host, "10.1.2.3");
  EXPECT_EQ(cfg->server.port, 6443);
  EXPECT_EQ(cfg->ca_pem, kCaPem);
  EXPECT_EQ(cfg->token, "abc123");
  EXPECT_FALSE(cfg->insecure_skip_tls_verify);
  EXPECT_EQ(cfg->source, "kubeconfig /etc/kc (context dev)");
}

TEST(KubeClientKubeconfig, NamedContextAndBasePath) {
  auto cfg = parse_kubeconfig(kubeconfig("", "    token: t\n"), "/x", "local");
  ASSERT_TRUE(cfg) << cfg.message();
  EXPECT_EQ(cfg->server.scheme, "http");
  EXPECT_EQ(cfg->server.port, 8080);
  EXPECT_EQ(cfg->server.base_path, "/prefix");
  EXPECT_EQ(cfg->server.url(), "http://127.0.0.1:8080/prefix");
  EXPECT_TRUE(cfg->token.empty());
}

TEST(KubeClientKubeconfig, FilesRelativeToTheKubeconfigAndInsecureFlag) {
  TempDir dir;
  write_file(dir.file("ca.crt"), kCaPem);
  write_file(dir.file("client.crt"), "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n");
  write_file(dir.file("client.key"), "-----BEGIN PRIVATE KEY-----\nAA==\n-----END PRIVATE KEY-----\n");
  std::string path = dir.file("config");
  write_file(path, kubeconfig("    certificate-authority: ca.crt\n    insecure-skip-tls-verify: true\n",
                              "    client-certificate: client.crt\n    client-key: " + dir.file("client.key") +
                                  "\n    tokenFile: tok\n"));
  auto cfg = load_kubeconfig(path);
  ASSERT_TRUE(cfg) << cfg.message();
  EXPECT_EQ(cfg->ca_pem, kCaPem);
  EXPECT_EQ(cfg->ca_file, dir.file("ca.crt"));
  EXPECT_NE(cfg->client_cert_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_NE(cfg->client_key_pem.find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ(cfg->token_file, dir.file("tok"));
  EXPECT_TRUE(cfg->insecure_skip_tls_verify);
}

struct BadCase {
  std::string text;
  std::string expected;  // a piece of the one-line error
};

TEST(KubeClientKubeconfig, MalformedInputGivesOneLineNamingFileAndField) {
  std::vector<BadCase> cases = {
      {"clusters: [\n  - name: a\n  bad", "kubeconfig /k: line"},
      {"- just\n- a list\n", "kubeconfig /k: not a kubeconfig"},
      {kubeconfig("", "    token: t\n", "nope"), "field 'contexts': no entry named 'nope'"},
      {kubeconfig("", "    token: t\n", "\"\""), "field 'current-context': missing"},
      {"current-context: a\ncontexts:\n- name: a\n  context: {cluster: x, user: u}\nclusters: []\n",
       "field 'clusters': no entry named 'x'"},
      {"current-context: a\ncontexts:\n- name: a\n  context: {user: u}\n", "context.cluster': missing"},
      {kubeconfig("    certificate-authority-data: '%%%'\n", ""),
       "field 'clusters[c1].cluster.certificate-authority-data': invalid base64"},
      {kubeconfig("    certificate-authority-data: aGVsbG8=\n", ""), "not PEM after base64 decoding"},
      {kubeconfig("    certificate-authority: /nonexistent/ca.crt\n", ""),
       "field 'clusters[c1].cluster.certificate-authority': /nonexistent/ca.crt: cannot read"},
      {kubeconfig("    insecure-skip-tls-verify: maybe\n", ""), "insecure-skip-tls-verify': not a boolean: 'maybe'"},
      {kubeconfig("", "    client-certificate-data: " + base64_encode(kCaPem) + "\n"),
       "client-certificate and client-key must be given together"},
      {"current-context: a\ncontexts:\n- name: a\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: "
       "{server: 'ftp://x'}\n",
       "field 'clusters[c].cluster.server': server 'ftp://x': scheme must be http or https"},
      {"current-context: a\ncontexts:\n- name: a\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: "
       "{server: 'https://h:99999'}\n",
       "bad port '99999'"},
      {"current-context: a\ncontexts:\n- name: a\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: {}\n",
       "field 'clusters[c].cluster.server': missing"},
      {kubeconfig("", "    exec: {command: aws}\n"),
       "field 'users[u1].user.exec.apiVersion': '' is not client.authentication.k8s.io/v1 or v1beta1"},
  };
  for (const auto& c : cases) {
    auto cfg = parse_kubeconfig(c.text, "/k");
    ASSERT_FALSE(cfg) << "accepted: " << c.text;
    EXPECT_NE(cfg.message().find(c.expected), std::string::npos) << cfg.message();
    EXPECT_EQ(cfg.message().find('\n'), std::string::npos) << cfg.message();
    EXPECT_EQ(cfg.message().rfind("kubeconfig /k: ", 0), 0u) << cfg.message();
  }
}

TEST(KubeClientKubeconfig, MissingFileNamesIt) {
  auto cfg = load_kubeconfig("/nonexistent/kubeconfig");
  ASSERT_FALSE(cfg);
  EXPECT_NE(cfg.message().find("/nonexistent/kubeconfig: cannot read"), std::string::npos) << cfg.message();
}

TEST(KubeClientInCluster, ReadsServiceAccountAndEnvironment) {
  TempDir dir;
  write_file(dir.file("token"), "sa-token\n");
  write_file(dir.file("ca.crt"), kCaPem);
  auto cfg = load_in_cluster({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}},
                             dir.path());
  ASSERT_TRUE(cfg) << cfg.message();
  EXPECT_EQ(cfg->server.url(), "https://10.96.0.1:443");
  EXPECT_EQ(cfg->token_file, dir.file("token"));
  EXPECT_EQ(cfg->ca_pem, kCaPem);

  auto v6 = load_in_cluster({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "6443"}},
                            dir.path());
  ASSERT_TRUE(v6) << v6.message();
  EXPECT_EQ(v6->server.host, "fd00::1");
  EXPECT_EQ(v6->server.url(), "https://[fd00::1]:6443");

  auto no_env = load_in_cluster({}, dir.path());
  ASSERT_FALSE(no_env);
  EXPECT_NE(no_env.message().find("KUBERNETES_SERVICE_HOST"), std::string::npos);
  auto no_token = load_in_cluster({{"KUBERNETES_SERVICE_HOST", "h"}, {"KUBERNETES_SERVICE_PORT", "1"}},
                                  dir.file("missing"));
  ASSERT_FALSE(no_token);
  EXPECT_NE(no_token.message().find("missing/token"), std::string::npos) << no_token.message();
}

TEST(KubeClientResolveConfig, FlagThenKubeconfigEnvThenInClusterThenHome) {
  TempDir dir;
  std::string flag = dir.file("flag"), env_kc = dir.file("env"), home_kc = dir.file("home/.kube/config");
  auto with_server = [](const std::string& server) {
    return "current-context: a\ncontexts:\n- name: a\n  context: {cluster: c}\nclusters:\n- name: c\n  cluster: "
           "{server: '" + server + "'}\n";
  };
  write_file(flag, with_server("http://flag:1"));
  write_file(env_kc, with_server("http://env:2"));
  std::filesystem::create_directories(dir.file("home/.kube"));
  write_file(home_kc, with_server("http://home:3"));
  TempDir sa;
  write_file(sa.file("token"), "t");
  write_file(sa.file("ca.crt"), kCaPem);
  Environment env = {{"KUBECONFIG", dir.file("missing") + ":" + env_kc},
                     {"KUBERNETES_SERVICE_HOST", "incluster"},
                     {"KUBERNETES_SERVICE_PORT", "443"},
                     {"HOME", dir.file("home")}};
  EXPECT_EQ(resolve_config(flag, env, sa.path())->server.host, "flag");
  EXPECT_EQ(resolve_config("", env, sa.path())->server.host, "env");
  env.erase("KUBECONFIG");
  EXPECT_EQ(resolve_config("", env, sa.path())->server.host, "incluster");
  EXPECT_EQ(resolve_config("", env, dir.file("no-sa"))->server.host, "home");
  env.erase("HOME");
  auto none = resolve_config("", env, dir.file("no-sa"));
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("no Kubernetes API configuration"), std::string::npos);
  auto bad_env = resolve_config("", {{"KUBECONFIG", dir.file("nope")}}, dir.file("no-sa"));
  ASSERT_FALSE(bad_env);
  EXPECT_NE(bad_env.message().find(dir.file("nope") + " (from $KUBECONFIG): no such file"), std::string::npos);
}

TEST(Base64, RoundTripsAndRejectsGarbage) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "hello world\n"}) {
    auto back = base64_decode(base64_encode(s));
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, s);
  }
  EXPECT_EQ(*base64_decode("aGVs\nbG8="), "hello");
  EXPECT_FALSE(base64_decode("aGVs*G8="));
  EXPECT_FALSE(base64_decode("a"));
}

}  // namespace
}  // namespace weft::kube
