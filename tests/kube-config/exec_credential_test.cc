// Out-of-cluster clients: kubeconfig exec credentials (client.authentication.k8s.io/v1 and
// v1beta1, cached until expiry or a 401) with a fake plugin, and $KUBECONFIG lists merged
// as kubectl merges them; end to end against kube-lite with token authentication.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "kube/client/client.h"
#include "kube/client/config.h"
#include "kube/client/exec_credential.h"
#include "kube/client/kubeconfig_merge.h"
#include "kube/time.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::kube {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using weft::testing::read_file;
using weft::testing::TempDir;
using weft::testing::write_file;

// A fake plugin: records its arguments, environment and KUBERNETES_EXEC_INFO, counts its
// runs, and prints an ExecCredential with the token in $DIR/token (and the expiry in
// $DIR/expiry when that file exists); $DIR/fail makes it fail like a real plugin.
void write_plugin(const std::string& path, const std::string& dir, const std::string& api_version) {
  write_file(path,
             "#!/bin/sh\n"
             "D=" + dir + "\n"
             "echo run >> $D/runs\n"
             "echo \"$@\" > $D/args\n"
             "echo \"$PLUGIN_REGION\" > $D/env\n"
             "printf '%s' \"$KUBERNETES_EXEC_INFO\" > $D/info\n"
             "if [ -f $D/fail ]; then echo 'token request denied: session expired' >&2; exit 3; fi\n"
             "exp=''\n"
             "if [ -f $D/expiry ]; then exp=\",\\\"expirationTimestamp\\\":\\\"$(cat $D/expiry)\\\"\"; fi\n"
             "printf '{\"apiVersion\":\"" + api_version +
                 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%s\"%s}}' \"$(cat $D/token)\" \"$exp\"\n");
  chmod(path.c_str(), 0755);
}

int runs(const std::string& dir) {
  std::string text = read_file(dir + "/runs");
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::string exec_kubeconfig(const std::string& server, const std::string& command, const std::string& extra = "",
                            const std::string& api_version = "client.authentication.k8s.io/v1") {
  return "apiVersion: v1\nkind: Config\ncurrent-context: managed\n"
         "clusters:\n- name: managed\n  cluster:\n    server: " + server + "\n"
         "contexts:\n- name: managed\n  context: {cluster: managed, user: sso}\n"
         "users:\n- name: sso\n  user:\n    exec:\n"
         "      apiVersion: " + api_version + "\n"
         "      command: " + command + "\n"
         "      args: [token, --cluster, managed]\n"
         "      env:\n      - {name: PLUGIN_REGION, value: eu-west-1}\n"
         "      provideClusterInfo: true\n" + extra;
}

TEST(ExecCredential, ParsesTheCredentialAndNamesWhatIsWrong) {
  const std::string v1 = "client.authentication.k8s.io/v1";
  auto ok = parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"abc","expirationTimestamp":"2030-01-02T03:04:05Z"}})",
      v1);
  ASSERT_TRUE(ok) << ok.message();
  EXPECT_EQ(ok->token, "abc");
  ASSERT_TRUE(ok->expires);
  EXPECT_EQ(format_rfc3339(*ok->expires), "2030-01-02T03:04:05Z");
  auto no_expiry = parse_exec_credential(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t"}})", v1);
  ASSERT_TRUE(no_expiry);
  EXPECT_FALSE(no_expiry->expires);
  const std::pair<std::string, std::string> bad[] = {
      {"not json", "output is not JSON"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}})",
       "apiVersion is 'client.authentication.k8s.io/v1beta1', want client.authentication.k8s.io/v1"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Secret","status":{"token":"t"}})", "want ExecCredential"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})", "output has no status"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{}})", "status.token is missing"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"x","clientKeyData":"y"}})",
       "client certificate and no token"},
      {R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"soon"}})",
       "status.expirationTimestamp"},
  };
  for (const auto& [text, why] : bad) {
    auto r = parse_exec_credential(text, v1);
    ASSERT_FALSE(r) << text;
    EXPECT_NE(r.message().find(why), std::string::npos) << r.message();
  }
}

TEST(ExecCredential, KubeconfigFieldsAreCheckedAndNamed) {
  const std::pair<std::string, std::string> cases[] = {
      {"      interactiveMode: Never\n", ""},
      {"", "exec.interactiveMode': required for client.authentication.k8s.io/v1"},
      {"      interactiveMode: Always\n", "Always needs a terminal"},
      {"      interactiveMode: Sometimes\n", "'Sometimes' is not Never, IfAvailable or Always"},
      {"      interactiveMode: Never\n      provideClusterInfo: maybe\n", "provideClusterInfo"},
  };
  for (const auto& [extra, why] : cases) {
    std::string text = exec_kubeconfig("https://10.0.0.1:6443", "gke-auth", extra);
    if (extra.find("provideClusterInfo") != std::string::npos) {
      text.replace(text.find("      provideClusterInfo: true\n"), 31, "");
    }
    auto cfg = parse_kubeconfig(text, "/home/me/.kube/config");
    if (why.empty()) {
      ASSERT_TRUE(cfg) << cfg.message();
      EXPECT_TRUE(cfg->token_provider);
      continue;
    }
    ASSERT_FALSE(cfg) << extra;
    EXPECT_NE(cfg.message().find(why), std::string::npos) << cfg.message();
    EXPECT_EQ(cfg.message().rfind("kubeconfig /home/me/.kube/config: field 'users[sso].user.exec", 0), 0u)
        << cfg.message();
  }
  auto alpha = parse_kubeconfig(exec_kubeconfig("https://h", "x", "", "client.authentication.k8s.io/v1alpha1"), "/k");
  ASSERT_FALSE(alpha);
  EXPECT_NE(alpha.message().find("v1alpha1' is not client.authentication.k8s.io/v1 or v1beta1"), std::string::npos);
  // v1beta1 needs no interactiveMode; a static token next to exec wins, as in kubectl.
  EXPECT_TRUE(parse_kubeconfig(exec_kubeconfig("https://h", "x", "", "client.authentication.k8s.io/v1beta1"), "/k"));
  auto with_token = parse_kubeconfig(exec_kubeconfig("https://h", "x", "      interactiveMode: Never\n    token: static\n"), "/k");
  ASSERT_TRUE(with_token) << with_token.message();
  EXPECT_EQ(with_token->token, "static");
  EXPECT_FALSE(with_token->token_provider);
}

TEST(ExecCredential, RunsThePluginAsKubectlAndCachesUntilExpiry) {
  TempDir dir("exec-plugin");
  std::filesystem::create_directories(dir.file("bin"));
  write_plugin(dir.file("bin/fake-auth"), dir.path(), "client.authentication.k8s.io/v1");
  write_file(dir.file("token"), "token-1");
  write_file(dir.file("expiry"), "2030-01-01T00:10:00Z");
  // A relative command with a '/' is relative to the kubeconfig's folder.
  auto cfg = parse_kubeconfig(exec_kubeconfig("https://10.0.0.1:6443", "./bin/fake-auth", "      interactiveMode: IfAvailable\n"),
                              dir.file("config"));
  ASSERT_TRUE(cfg) << cfg.message();
  ASSERT_TRUE(cfg->token_provider);
  // Re-make the provider with a test clock (same ExecConfig the kubeconfig gave).
  auto now = *parse_rfc3339("2030-01-01T00:00:00Z");
  ExecConfig e;
  e.api_version = "client.authentication.k8s.io/v1";
  e.command = dir.file("bin/fake-auth");
  e.args = {"token", "--cluster", "managed"};
  e.env = {{"PLUGIN_REGION", "eu-west-1"}};
  e.provide_cluster_info = true;
  e.server = "https://10.0.0.1:6443";
  e.where = "test";
  ExecTokenProvider provider(e, [&] { return now; });

  auto t = cfg->token_provider->token();   // the kubeconfig's own provider works as well
  ASSERT_TRUE(t) << t.message();
  EXPECT_EQ(*t, "token-1");
  EXPECT_EQ(runs(dir.path()), 1);
  EXPECT_EQ(read_file(dir.file("args")), "token --cluster managed\n");
  EXPECT_EQ(read_file(dir.file("env")), "eu-west-1\n");
  json info = json::parse(read_file(dir.file("info")));
  EXPECT_EQ(info["apiVersion"], "client.authentication.k8s.io/v1");
  EXPECT_EQ(info["kind"], "ExecCredential");
  EXPECT_EQ(info["spec"]["interactive"], false);
  EXPECT_EQ(info["spec"]["cluster"]["server"], "https://10.0.0.1:6443");

  ASSERT_EQ(*provider.token(), "token-1");
  write_file(dir.file("token"), "token-2");
  now += 5min;
  EXPECT_EQ(*provider.token(), "token-1");   // cached: not expired yet
  EXPECT_EQ(provider.runs(), 1);
  now += 5min;                               // 00:10:00: expired
  EXPECT_EQ(*provider.token(), "token-2");
  EXPECT_EQ(provider.runs(), 2);
  write_file(dir.file("expiry"), "2030-01-01T01:00:00Z");
  write_file(dir.file("token"), "token-3");
  provider.unauthorized();                   // a 401 drops the cache
  EXPECT_EQ(*provider.token(), "token-3");
  EXPECT_EQ(provider.runs(), 3);

  // Failures name the kubeconfig field, the plugin and what it said.
  write_file(dir.file("fail"), "");
  now += 2h;
  auto failed = provider.token();
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.message().find("exec plugin '" + dir.file("bin/fake-auth") + "': exit status 3: token request denied"),
            std::string::npos)
      << failed.message();
  e.command = "weft-no-such-auth-plugin";
  e.install_hint = "install it with: apt-get install weft-auth";
  auto missing = ExecTokenProvider(e).token();
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find("command not found; install it with: apt-get install weft-auth"), std::string::npos)
      << missing.message();
}

// The plugin's token against kube-lite with token authentication: one plugin run for many
// requests; a 401 (the token was revoked) makes the next request run it again.
TEST(ExecCredential, ClientAuthenticatesToKubeLiteWithThePluginsToken) {
  WEFT_SKIP_UNLESS(weft::testing::KubeLite::need());
  TempDir dir("exec-kube-lite");
  write_file(dir.file("tokens.json"),
             json::array({{{"token", "sso-good"}, {"user", "alice"},
                           {"rules", json::array({{{"verbs", {"get", "list"}}, {"apiGroups", {""}}, {"resources", {"nodes"}}}})}}})
                 .dump());
  weft::testing::KubeLite api({.tokens = dir.file("tokens.json")});
  ASSERT_EQ(api.error(), "");
  write_plugin(dir.file("auth"), dir.path(), "client.authentication.k8s.io/v1beta1");
  write_file(dir.file("token"), "sso-stale");
  write_file(dir.file("config"), exec_kubeconfig(api.url(), dir.file("auth"), "", "client.authentication.k8s.io/v1beta1"));
  auto cfg = load_kubeconfig(dir.file("config"));
  ASSERT_TRUE(cfg) << cfg.message();
  auto client = Client::from_config(*cfg, weft::testing::test_client_options());
  ASSERT_TRUE(client) << client.message();
  auto first = (*client)->list_page(resources::nodes(), "", ListOptions{.limit = 1});
  ASSERT_FALSE(first);
  EXPECT_EQ(first.error().code, 401) << first.message();
  write_file(dir.file("token"), "sso-good");
  for (int i = 0; i < 5; ++i) {
    auto list = (*client)->list_page(resources::nodes(), "", ListOptions{.limit = 1});
    ASSERT_TRUE(list) << list.message();
  }
  EXPECT_EQ(runs(dir.path()), 2);   // once for the stale token, once after its 401
}

// $KUBECONFIG=a:missing:b, as kubectl merges it: the first file naming an entry wins,
// paths are relative to the file that holds them, current-context from the first file.
TEST(KubeconfigList, MergesAsKubectlDoes) {
  TempDir dir("kubeconfig-merge");
  std::filesystem::create_directories(dir.file("b/creds"));
  write_file(dir.file("b/creds/token"), "from-b\n");
  write_file(dir.file("a"),
             "apiVersion: v1\nkind: Config\ncurrent-context: work\n"
             "clusters:\n- name: prod\n  cluster: {server: 'https://prod-a:6443'}\n"
             "contexts:\n- name: work\n  context: {cluster: prod, user: me}\n");
  write_file(dir.file("b/config"),
             "apiVersion: v1\nkind: Config\ncurrent-context: other\n"
             "clusters:\n- name: prod\n  cluster: {server: 'https://prod-b:6443'}\n"
             "- name: lab\n  cluster: {server: 'https://lab:6443'}\n"
             "users:\n- name: me\n  user: {tokenFile: creds/token}\n"
             "contexts:\n- name: work\n  context: {cluster: lab, user: nobody}\n"
             "- name: other\n  context: {cluster: lab, user: me}\n");
  Environment env = {{"KUBECONFIG", dir.file("a") + ":" + dir.file("missing") + ":" + dir.file("b/config")}};
  auto cfg = resolve_config("", env, dir.file("no-sa"));
  ASSERT_TRUE(cfg) << cfg.message();
  EXPECT_EQ(cfg->server.host, "prod-a");                         // a's cluster and context win
  EXPECT_EQ(cfg->token_file, dir.file("b/creds/token"));         // relative to b's folder
  EXPECT_NE(cfg->source.find("context work"), std::string::npos) << cfg->source;

  auto merged = merge_kubeconfigs({dir.file("b/config"), dir.file("a")});
  ASSERT_TRUE(merged) << merged.message();
  auto flipped = parse_kubeconfig(*merged, "merged");
  ASSERT_TRUE(flipped) << flipped.message();
  EXPECT_EQ(flipped->server.host, "lab");                        // b first: its current-context "other"

  write_file(dir.file("broken"), "clusters: {not: a list}\n");
  auto bad = resolve_config("", {{"KUBECONFIG", dir.file("a") + ":" + dir.file("broken")}}, dir.file("no-sa"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find(dir.file("broken") + ": field 'clusters': not a list"), std::string::npos) << bad.message();
}

// The merged list reaches a real server: cluster from one file, credentials from another.
TEST(KubeconfigList, MergedConfigTalksToKubeLite) {
  WEFT_SKIP_UNLESS(weft::testing::KubeLite::need());
  TempDir dir("kubeconfig-merge-lite");
  write_file(dir.file("tokens.json"),
             json::array({{{"token", "t-bob"}, {"user", "bob"},
                           {"rules", json::array({{{"verbs", {"list"}}, {"apiGroups", {""}}, {"resources", {"nodes"}}}})}}})
                 .dump());
  weft::testing::KubeLite api({.tokens = dir.file("tokens.json")});
  ASSERT_EQ(api.error(), "");
  write_file(dir.file("clusters"), "apiVersion: v1\nkind: Config\ncurrent-context: lite\nclusters:\n- name: lite\n"
                                   "  cluster: {server: '" + api.url() + "'}\ncontexts:\n- name: lite\n"
                                   "  context: {cluster: lite, user: bob}\n");
  write_file(dir.file("users"), "apiVersion: v1\nkind: Config\nusers:\n- name: bob\n  user: {token: t-bob}\n");
  auto cfg = resolve_config("", {{"KUBECONFIG", dir.file("clusters") + ":" + dir.file("users")}}, dir.file("no-sa"));
  ASSERT_TRUE(cfg) << cfg.message();
  auto client = Client::from_config(*cfg, weft::testing::test_client_options());
  ASSERT_TRUE(client) << client.message();
  auto list = (*client)->list_page(resources::nodes(), "", ListOptions{.limit = 1});
  EXPECT_TRUE(list) << list.message();
}

}  // namespace
}  // namespace weft::kube
