// deploy/ as kustomize renders it: one image at the project version, least-privilege RBAC,
// an admission policy that follows the overlay's namespace, Prometheus Operator objects
// only in their component, the HCA through the device plugin overlay, probes.
#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "tests/deploy/render.h"
#include "tests/support/process.h"

namespace weft::testing {
namespace {

const char* kImage = "ghcr.io/weft-dev/weft";

std::set<std::string> strings(const YAML::Node& seq) {
  std::set<std::string> out;
  if (seq && seq.IsSequence())
    for (const auto& v : seq) out.insert(v.as<std::string>());
  return out;
}

Rendered render_source(const std::string& relative) {
  Rendered r = kustomize(source_path(relative));
  EXPECT_EQ(r.error, "");
  return r;
}

class Deploy : public ::testing::Test {
 protected:
  void SetUp() override { WEFT_SKIP_UNLESS(need_tools({"kubectl"})); }
};

TEST_F(Deploy, EveryContainerRunsTheOneImageAtTheProjectVersion) {
  const std::string version = project_version();
  ASSERT_FALSE(version.empty());
  const std::set<std::string> binaries = {"weft-agent", "weft-scheduler", "weft-descheduler"};
  for (const char* dir : {"deploy", "deploy/descheduler/interval", "deploy/overlays/rdma-shared-device",
                          "deploy/overlays/prometheus-operator"}) {
    Rendered r = render_source(dir);
    auto all = containers(r);
    EXPECT_GE(all.size(), dir == std::string("deploy/descheduler/interval") ? 1u : 3u) << dir;
    for (const auto& [where, c] : all) {
      EXPECT_EQ(c["image"].as<std::string>(""), std::string(kImage) + ":" + version) << dir << ": " << where;
      ASSERT_TRUE(c["command"] && c["command"].size() == 1) << dir << ": " << where << " names no binary";
      EXPECT_TRUE(binaries.count(c["command"][0].as<std::string>())) << where;
    }
  }
  // scripts/image tags what the manifests name.
  auto [code, out] = run_command({source_path("scripts/image"), "--print-tag"});
  EXPECT_EQ(code, 0) << out;
  EXPECT_EQ(out, version + "\n");
}

// Every rule on ConfigMaps or Leases names its objects and only reads/updates them; the
// objects are shipped, so nothing needs `create` (which RBAC cannot narrow by name).
TEST_F(Deploy, ConfigMapAndLeaseRulesNameTheObjectsTheyReach) {
  Rendered r = render_source("deploy");
  int rules = 0;
  for (const auto& o : r.objects) {
    const std::string kind = o["kind"].as<std::string>("");
    if (kind != "Role" && kind != "ClusterRole") continue;
    const std::string role = kind + "/" + o["metadata"]["name"].as<std::string>();
    for (const auto& rule : o["rules"]) {
      const auto resources = strings(rule["resources"]);
      for (const char* res : {"configmaps", "leases"}) {
        if (!resources.count(res) && !resources.count("*")) continue;
        ++rules;
        EXPECT_EQ(kind, "Role") << role << ": " << res << " granted cluster-wide";
        const auto names = strings(rule["resourceNames"]);
        EXPECT_FALSE(names.empty()) << role << ": a rule on " << res << " without resourceNames";
        for (const auto& verb : strings(rule["verbs"]))
          EXPECT_TRUE(verb == "get" || verb == "update") << role << ": " << res << " verb " << verb;
        const std::string object_kind = std::string(res) == "leases" ? "Lease" : "ConfigMap";
        for (const auto& name : names) {
          YAML::Node obj = find_object(r, object_kind, name);
          ASSERT_TRUE(obj) << role << " names " << object_kind << " " << name << ", which deploy/ does not create";
          EXPECT_EQ(obj["metadata"]["namespace"].as<std::string>(""), o["metadata"]["namespace"].as<std::string>(""));
        }
      }
    }
  }
  EXPECT_EQ(rules, 3);   // descheduler: state ConfigMap and Lease; scheduler: Lease
}

// The Leases and the state ConfigMap are named through the pod's own namespace (the
// downward API), so an overlay's `namespace:` moves the objects and the flags together.
TEST_F(Deploy, OwnObjectsAreNamedThroughThePodsNamespace) {
  TempDir dir("deploy-own-ns");
  write_overlay(dir.file("ops"), {"deploy/descheduler", "deploy/scheduler"}, "namespace: ops\n");
  for (const std::string& where : {dir.file("ops"), source_path("deploy/descheduler/interval")}) {
    Rendered r = kustomize(where);
    ASSERT_EQ(r.error, "");
    int flags = 0;
    for (const auto& [name, c] : containers(r)) {
      std::string pod_namespace_from;
      for (const auto& e : c["env"])
        if (e["name"].as<std::string>() == "POD_NAMESPACE")
          pod_namespace_from = e["valueFrom"]["fieldRef"]["fieldPath"].as<std::string>("");
      for (const auto& a : c["args"]) {
        const std::string arg = a.as<std::string>();
        for (const char* flag : {"--lease=", "--state-configmap=", "--lease-namespace="}) {
          if (arg.rfind(flag, 0) != 0) continue;
          ++flags;
          EXPECT_EQ(arg.find("$(POD_NAMESPACE)"), std::string(flag).size()) << name << ": " << arg;
          EXPECT_EQ(pod_namespace_from, "metadata.namespace") << name;
        }
      }
    }
    EXPECT_EQ(flags, where == dir.file("ops") ? 2 : 1) << where;
  }
}

// The agent gets and merge-patches its own Node and reads pods; it never lists or watches
// nodes (node-agent/daemon/kube_node_api.cc is its only Node access).
TEST_F(Deploy, AgentRoleHoldsOnlyTheVerbsTheAgentUses) {
  Rendered r = render_source("deploy");
  YAML::Node role = find_object(r, "ClusterRole", "weft-agent");
  ASSERT_TRUE(role);
  std::map<std::string, std::set<std::string>> verbs;
  for (const auto& rule : role["rules"]) {
    EXPECT_EQ(strings(rule["apiGroups"]), std::set<std::string>{""});
    for (const auto& res : strings(rule["resources"]))
      for (const auto& v : strings(rule["verbs"])) verbs[res].insert(v);
  }
  EXPECT_EQ(verbs["nodes"], (std::set<std::string>{"get", "patch"}));
  EXPECT_EQ(verbs["pods"], (std::set<std::string>{"get", "list", "watch"}));
  EXPECT_EQ(verbs.size(), 2u);
  const std::string api = read_file(source_path("node-agent/daemon/kube_node_api.cc"));
  EXPECT_EQ(api.find("list"), std::string::npos) << "the agent lists nodes now: update deploy/agent/rbac.yaml";
  EXPECT_EQ(api.find("watch"), std::string::npos) << "the agent watches nodes now: update deploy/agent/rbac.yaml";
}

// The descheduler lists (no watch, no get) what the scheduler's snapshot reads, evicts and
// records an Event per eviction; the scheduler only creates Events.
TEST_F(Deploy, DeschedulerAndSchedulerRolesHoldNoUnusedVerb) {
  Rendered r = render_source("deploy");
  std::map<std::string, std::set<std::string>> verbs;
  for (const auto& rule : find_object(r, "ClusterRole", "weft-descheduler")["rules"])
    for (const auto& res : strings(rule["resources"]))
      for (const auto& v : strings(rule["verbs"])) verbs[res].insert(v);
  EXPECT_EQ(verbs, (std::map<std::string, std::set<std::string>>{{"pods", {"list"}},
                                                                 {"nodes", {"list"}},
                                                                 {"pods/eviction", {"create"}},
                                                                 {"events", {"create"}},
                                                                 {"podgroups", {"list"}},
                                                                 {"priorityclasses", {"list"}},
                                                                 {"poddisruptionbudgets", {"list"}},
                                                                 {"hypernodes", {"list"}},
                                                                 // the scheduler's volume and namespaceSelector rules, asked by nodeFit
                                                                 {"persistentvolumeclaims", {"list"}},
                                                                 {"persistentvolumes", {"list"}},
                                                                 {"storageclasses", {"list"}},
                                                                 {"csinodes", {"list"}},
                                                                 {"namespaces", {"list"}}}));
  // metrics-server's NodeMetrics and PodMetrics (metricsUtilization), listed like the rest.
  std::map<std::string, std::set<std::string>> metrics_verbs;
  for (const auto& rule : find_object(r, "ClusterRole", "weft-descheduler")["rules"])
    if (strings(rule["apiGroups"]).count("metrics.k8s.io"))
      for (const auto& res : strings(rule["resources"])) metrics_verbs[res] = strings(rule["verbs"]);
  EXPECT_EQ(metrics_verbs, (std::map<std::string, std::set<std::string>>{{"nodes", {"list"}}, {"pods", {"list"}}}));
  for (const auto& rule : find_object(r, "ClusterRole", "weft-scheduler")["rules"]) {
    if (strings(rule["resources"]).count("events")) {
      EXPECT_EQ(strings(rule["verbs"]), std::set<std::string>{"create"});
    }
  }
}

// An overlay that moves the agent to another namespace keeps the admission policy bound to
// the agent's service account there.
TEST_F(Deploy, AdmissionPolicyFollowsTheOverlayNamespace) {
  TempDir dir("deploy-ns");
  write_overlay(dir.file("gpu-ops"), {"deploy/agent"}, "namespace: gpu-ops\n");
  Rendered r = kustomize(dir.file("gpu-ops"));
  ASSERT_EQ(r.error, "");
  YAML::Node policy = find_object(r, "ValidatingAdmissionPolicy", "weft-agent-own-node-weft-keys");
  YAML::Node binding = find_object(r, "ValidatingAdmissionPolicyBinding", "weft-agent-own-node-weft-keys");
  YAML::Node ds = find_object(r, "DaemonSet", "weft-agent");
  ASSERT_TRUE(policy && binding && ds);
  EXPECT_EQ(ds["metadata"]["namespace"].as<std::string>(), "gpu-ops");
  const std::string sa = ds["spec"]["template"]["spec"]["serviceAccountName"].as<std::string>();
  YAML::Node account = find_object(r, "ServiceAccount", sa);
  ASSERT_TRUE(account);
  EXPECT_EQ(account["metadata"]["namespace"].as<std::string>(), "gpu-ops");

  // The binding's param is that account, in the overlay's namespace.
  EXPECT_EQ(policy["spec"]["paramKind"]["kind"].as<std::string>(""), "ServiceAccount");
  EXPECT_EQ(policy["spec"]["paramKind"]["apiVersion"].as<std::string>(""), "v1");
  EXPECT_EQ(binding["spec"]["policyName"].as<std::string>(), policy["metadata"]["name"].as<std::string>());
  EXPECT_EQ(binding["spec"]["paramRef"]["name"].as<std::string>(""), sa);
  EXPECT_EQ(binding["spec"]["paramRef"]["namespace"].as<std::string>(""), "gpu-ops");
  EXPECT_EQ(binding["spec"]["paramRef"]["parameterNotFoundAction"].as<std::string>(""), "Deny");

  // The user the agent's token carries passes the match condition's pre-filter, and the
  // exact comparison is built from the param, not from a namespace written in the policy.
  const std::string user = "system:serviceaccount:gpu-ops:" + sa;
  const std::string condition = policy["spec"]["matchConditions"][0]["expression"].as<std::string>();
  std::smatch m;
  ASSERT_TRUE(std::regex_search(condition, m,
                                std::regex(R"(startsWith\('([^']*)'\)\s*&&\s*request\.userInfo\.username\.endsWith\('([^']*)'\))")))
      << condition;
  EXPECT_TRUE(user.starts_with(m[1].str()) && user.ends_with(m[2].str())) << condition;
  std::string is_agent;
  for (const auto& v : policy["spec"]["variables"])
    if (v["name"].as<std::string>() == "isAgent") is_agent = v["expression"].as<std::string>();
  EXPECT_NE(is_agent.find("params.metadata.namespace"), std::string::npos) << is_agent;
  EXPECT_NE(is_agent.find("params.metadata.name"), std::string::npos) << is_agent;
  for (const auto& v : policy["spec"]["validations"])
    EXPECT_EQ(v["expression"].as<std::string>().rfind("!variables.isAgent ||", 0), 0u)
        << "a validation that does not first ask whether the user is the agent: " << v["expression"];
  YAML::Emitter text;
  text << policy << binding;
  EXPECT_EQ(std::string(text.c_str()).find("weft-system"), std::string::npos) << text.c_str();
  // RBAC follows too (kustomize's built-in namespace handling of subjects).
  YAML::Node crb = find_object(r, "ClusterRoleBinding", "weft-agent");
  EXPECT_EQ(crb["subjects"][0]["namespace"].as<std::string>(""), "gpu-ops");
}

TEST_F(Deploy, PrometheusOperatorObjectsOnlyInTheirComponent) {
  Rendered base = render_source("deploy");
  for (const auto& o : base.objects)
    EXPECT_EQ(o["apiVersion"].as<std::string>().find("monitoring.coreos.com"), std::string::npos)
        << o["kind"] << " " << o["metadata"]["name"] << " needs the Prometheus Operator's CRDs";
  Rendered with = render_source("deploy/overlays/prometheus-operator");
  Rendered interval = render_source("deploy/descheduler/interval");
  std::vector<YAML::Node> workloads;
  for (const Rendered* r : {&with, &interval})
    for (const auto& o : r->objects)
      if (o["kind"].as<std::string>() == "Deployment" || o["kind"].as<std::string>() == "DaemonSet")
        workloads.push_back(o);
  std::set<std::string> monitored;
  for (const auto& pm : with.objects) {
    if (pm["kind"].as<std::string>() != "PodMonitor") continue;
    // Each PodMonitor selects a workload in its namespace whose pods have the named port.
    bool found = false;
    for (const auto& w : workloads) {
      if (w["metadata"]["namespace"].as<std::string>() != pm["metadata"]["namespace"].as<std::string>()) continue;
      const YAML::Node labels = w["spec"]["template"]["metadata"]["labels"];
      bool selected = true;
      for (const auto& kv : pm["spec"]["selector"]["matchLabels"])
        selected = selected && labels[kv.first.as<std::string>()].as<std::string>("") == kv.second.as<std::string>();
      if (!selected) continue;
      for (const auto& port : w["spec"]["template"]["spec"]["containers"][0]["ports"])
        found = found || port["name"].as<std::string>() == pm["spec"]["podMetricsEndpoints"][0]["port"].as<std::string>();
    }
    EXPECT_TRUE(found) << "PodMonitor " << pm["metadata"]["name"] << " selects no pod with its port";
    monitored.insert(pm["metadata"]["name"].as<std::string>());
  }
  EXPECT_EQ(monitored, (std::set<std::string>{"weft-agent", "weft-scheduler", "weft-descheduler"}));
}

// The base mounts no device files (nodes without an HCA run it as it is); the overlay asks
// the RDMA shared device plugin for the HCA, still without privileged.
TEST_F(Deploy, AgentReachesTheHcaThroughTheDevicePluginOverlay) {
  for (const char* dir : {"deploy", "deploy/overlays/rdma-shared-device"}) {
    Rendered r = render_source(dir);
    YAML::Node ds = find_object(r, "DaemonSet", "weft-agent");
    ASSERT_TRUE(ds) << dir;
    const YAML::Node pod = ds["spec"]["template"]["spec"];
    for (const auto& v : pod["volumes"]) {
      if (v["hostPath"]) {
        EXPECT_NE(v["hostPath"]["path"].as<std::string>().rfind("/dev", 0), 0u) << dir << ": " << v;
      }
    }
    const YAML::Node c = pod["containers"][0];
    EXPECT_FALSE(c["securityContext"]["privileged"].as<bool>(false)) << dir;
    EXPECT_FALSE(c["securityContext"]["allowPrivilegeEscalation"].as<bool>(true)) << dir;
    EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>(false)) << dir;
    EXPECT_EQ(strings(c["securityContext"]["capabilities"]["add"]), (std::set<std::string>{"BPF", "PERFMON", "SYSLOG"}));
    std::string rdma;
    for (const auto& kv : c["resources"]["limits"])
      if (kv.first.as<std::string>().rfind("rdma/", 0) == 0) rdma = kv.first.as<std::string>();
    if (std::string(dir) == "deploy") {
      EXPECT_EQ(rdma, "") << "the base must run on nodes without the device plugin";
    } else {
      EXPECT_EQ(rdma, "rdma/hca_shared_devices_a");
      EXPECT_EQ(c["resources"]["limits"][rdma].as<std::string>(), "1");
    }
  }
}

TEST_F(Deploy, BothDeploymentsProbeAPortTheyServe) {
  for (auto [dir, name] : {std::pair{"deploy", "weft-scheduler"}, std::pair{"deploy/descheduler/interval", "weft-descheduler"}}) {
    Rendered r = render_source(dir);
    YAML::Node d = find_object(r, "Deployment", name);
    ASSERT_TRUE(d) << name;
    const YAML::Node c = d["spec"]["template"]["spec"]["containers"][0];
    std::map<std::string, int> ports;
    for (const auto& p : c["ports"]) ports[p["name"].as<std::string>()] = p["containerPort"].as<int>();
    std::string args;
    for (const auto& a : c["args"]) args += a.as<std::string>() + " ";
    for (const char* probe : {"livenessProbe", "readinessProbe"}) {
      ASSERT_TRUE(c[probe]) << name << " has no " << probe;
      const std::string port = c[probe]["httpGet"]["port"].as<std::string>("");
      ASSERT_TRUE(ports.count(port)) << name << " " << probe << " names port '" << port << "'";
      EXPECT_NE(args.find("--metrics-listen=0.0.0.0:" + std::to_string(ports[port])), std::string::npos)
          << name << " does not listen on its probed port: " << args;
    }
  }
}

}  // namespace
}  // namespace weft::testing
