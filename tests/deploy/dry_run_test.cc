// `kubectl apply --dry-run=server -k` of deploy/ against kube-lite: every object is
// checked by the server, with strict field validation (kubectl leaves it to a server that
// advertises it), so a misspelt field fails; the plain Prometheus scrape config is valid.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "tests/deploy/render.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::testing {
namespace {

using nlohmann::json;

class DeployDryRun : public ::testing::Test {
 protected:
  void SetUp() override {
    WEFT_SKIP_UNLESS(need_tools({"kubectl"}));
    WEFT_SKIP_UNLESS(KubeLite::need());
    api_ = std::make_unique<KubeLite>();
    ASSERT_EQ(api_->error(), "");
    // Namespaced objects need their namespace on the server, as on a real one.
    auto ns = api_->client().create(kube::resources::namespaces(), "",
                                    json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "weft-system"}}}});
    ASSERT_TRUE(ns.ok()) << ns.message();
  }
  std::unique_ptr<KubeLite> api_;
};

TEST_F(DeployDryRun, EveryObjectPassesTheServersStrictFieldValidation) {
  for (const char* dir : {"deploy", "deploy/overlays/prometheus-operator", "deploy/overlays/rdma-shared-device",
                          "deploy/descheduler/interval"}) {
    Rendered r = kustomize(source_path(dir));
    ASSERT_EQ(r.error, "");
    const size_t before = api_->requests().size();
    auto [code, out] = api_->kubectl({"apply", "--dry-run=server", "-k", source_path(dir)});
    EXPECT_EQ(code, 0) << dir << ":\n" << out;
    std::set<std::string> kinds;
    for (const auto& o : r.objects) kinds.insert(o["kind"].as<std::string>());
    // One "(server dry run)" line per object, and every write (a create, or a patch of the
    // Namespace the test made) went to the server with dryRun=All and fieldValidation=Strict.
    size_t lines = 0;
    for (size_t at = out.find("(server dry run)"); at != std::string::npos; at = out.find("(server dry run)", at + 1)) ++lines;
    EXPECT_EQ(lines, r.objects.size()) << out;
    size_t posts = 0;
    const auto requests = api_->requests();
    for (size_t i = before; i < requests.size(); ++i) {
      const auto& q = requests[i];
      if (q.value("verb", "") != "POST" && q.value("verb", "") != "PATCH") continue;
      ++posts;
      EXPECT_NE(q.value("query", "").find("fieldValidation=Strict"), std::string::npos) << q.dump();
      EXPECT_NE(q.value("query", "").find("dryRun=All"), std::string::npos) << q.dump();
      EXPECT_EQ(q.value("status", 0), q.value("verb", "") == "POST" ? 201 : 200) << q.dump();
    }
    EXPECT_EQ(posts, r.objects.size()) << dir;
    if (std::string(dir) == "deploy/overlays/prometheus-operator") {
      for (const char* k : {"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
                            "DaemonSet", "Deployment", "CronJob", "ConfigMap", "Lease", "ValidatingAdmissionPolicy",
                            "ValidatingAdmissionPolicyBinding", "PodMonitor"})
        EXPECT_TRUE(kinds.count(k)) << k << " missing from " << dir;
    }
  }
}

// A misspelt field anywhere (pod template, RBAC rule, CRD spec) is refused by name; a
// value of the wrong type too.
TEST_F(DeployDryRun, AMisspeltFieldFailsTheDryRun) {
  Rendered r = kustomize(source_path("deploy/overlays/prometheus-operator"));
  ASSERT_EQ(r.error, "");
  TempDir dir("deploy-typo");
  struct Case {
    std::string from, to, expected;
  };
  const Case cases[] = {
      {"readinessProbe:", "readinesProbe:", R"(unknown field "spec.template.spec.containers[0].readinesProbe")"},
      {"resourceNames:", "resourceName:", R"(unknown field "rules[0].resourceName")"},
      {"podMetricsEndpoints:", "podMetricEndpoints:", R"(unknown field "spec.podMetricEndpoints")"},
      {"successfulJobsHistoryLimit: 3", "successfulJobsHistoryLimit: three",
       "cannot unmarshal string into Go struct field CronJobSpec.spec.successfulJobsHistoryLimit"},
  };
  for (const auto& c : cases) {
    std::string text = r.text;
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    write_file(dir.file("typo.yaml"), text);
    auto [code, out] = api_->kubectl({"apply", "--dry-run=server", "-f", dir.file("typo.yaml")});
    EXPECT_NE(code, 0) << c.to << ":\n" << out;
    EXPECT_NE(out.find(c.expected), std::string::npos) << out;
  }
}

// kubectl --validate=warn: the server accepts, warns per unknown field and stores the
// object without it; --validate=ignore: the same without a warning.
TEST_F(DeployDryRun, WarnAndIgnoreAcceptAndDropTheUnknownField) {
  TempDir dir("deploy-warn");
  for (const char* mode : {"warn", "ignore"}) {
    const std::string name = std::string("cm-") + mode;
    write_file(dir.file(name + ".yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name +
                                             ", namespace: weft-system}\ndata: {a: b}\ndatta: {c: d}\n");
    auto [code, out] = api_->kubectl({"create", "--validate=" + std::string(mode), "-f", dir.file(name + ".yaml")});
    EXPECT_EQ(code, 0) << out;
    EXPECT_EQ(out.find("unknown field \"datta\"") != std::string::npos, std::string(mode) == "warn") << out;
    auto stored = api_->client().get(kube::resources::configmaps(), "weft-system", name);
    ASSERT_TRUE(stored) << stored.message();
    EXPECT_FALSE(stored->contains("datta")) << stored->dump();
    EXPECT_EQ((*stored)["data"]["a"], "b");
  }
}

// The scrape config with each kubernetes_sd_configs block replaced by an empty static one.
std::string without_kubernetes_sd(const std::string& config) {
  std::istringstream in(config);
  std::string line, out;
  size_t block_indent = std::string::npos;
  while (std::getline(in, line)) {
    const size_t indent = line.find_first_not_of(' ');
    if (block_indent != std::string::npos && indent != std::string::npos &&
        (indent > block_indent || (indent == block_indent && line.compare(indent, 2, "- ") == 0)))
      continue;
    block_indent = std::string::npos;
    if (indent != std::string::npos && line.compare(indent, std::string::npos, "kubernetes_sd_configs:") == 0) {
      block_indent = indent;
      out += std::string(indent, ' ') + "static_configs: []\n";
      continue;
    }
    out += line + "\n";
  }
  return out;
}

TEST(DeployScrapeConfig, IsAValidPrometheusConfig) {
  WEFT_SKIP_UNLESS(need_tools({"kubectl", "promtool"}));
  Rendered r = kustomize(source_path("deploy"));
  ASSERT_EQ(r.error, "");
  YAML::Node cm = find_object(r, "ConfigMap", "weft-agent-scrape-config");
  ASSERT_TRUE(cm);
  std::string config = cm["data"]["weft-agent-scrape-config.yaml"].as<std::string>();
  EXPECT_NE(config.find("kubernetes_sd_configs"), std::string::npos) << config;
  TempDir dir("deploy-scrape");
  write_file(dir.file("scrape.yml"), config);
  auto [rc, out] = run_command({"promtool", "check", "config", dir.file("scrape.yml")});
  if (rc != 0 && out.find("field kubernetes_sd_configs not found") != std::string::npos) {
    // Debian's Prometheus is built without Kubernetes service discovery: check everything
    // else (jobs, relabelling) with the discovery block swapped for an empty static one.
    std::cout << "promtool here lacks kubernetes_sd; checking the rest of the scrape config\n";
    write_file(dir.file("scrape.yml"), without_kubernetes_sd(config));
    std::tie(rc, out) = run_command({"promtool", "check", "config", dir.file("scrape.yml")});
  }
  EXPECT_EQ(rc, 0) << out;
}

}  // namespace
}  // namespace weft::testing
