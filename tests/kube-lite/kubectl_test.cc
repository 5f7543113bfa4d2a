// The real kubectl against kube-lite: the commands an operator of a weft cluster runs.
#include <gtest/gtest.h>

#include <regex>

#include "kube/client/client.h"
#include "tests/support/kube_lite.h"

namespace weft::kube_lite {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using weft::testing::KubeLite;
using weft::testing::TempDir;
using weft::testing::write_file;
namespace res = weft::kube::resources;

std::string need_all() {
  auto built = KubeLite::need();
  return built.empty() ? weft::testing::need_tools({"kubectl"}) : built;
}

const char* kNodes = R"(apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {kubernetes.io/hostname: n1}
status:
  conditions: [{type: Ready, status: "True"}]
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: n2
  labels: {kubernetes.io/hostname: n2}
)";

class KubectlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WEFT_SKIP_UNLESS(need_all());
    write_file(dir_.file("state.yaml"), kNodes);
    api_ = std::make_unique<KubeLite>(weft::testing::KubeLiteOptions{.state = dir_.file("state.yaml")});
    ASSERT_EQ(api_->error(), "");
  }
  json get(const kube::ResourceRef& ref, const std::string& ns, const std::string& name) {
    auto r = api_->client().get(ref, ns, name);
    EXPECT_TRUE(r) << r.message();
    return r ? *r : json();
  }
  std::string kubectl_ok(const std::vector<std::string>& args) {
    auto [code, out] = api_->kubectl(args);
    EXPECT_EQ(code, 0) << out;
    return out;
  }
  TempDir dir_{"kubectl-test"};
  std::unique_ptr<KubeLite> api_;
};

TEST_F(KubectlTest, GetNodesJsonLabelAnnotateCordon) {
  json list = json::parse(kubectl_ok({"get", "nodes", "-o", "json"}));
  ASSERT_EQ(list["items"].size(), 2u);
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "n1");
  EXPECT_EQ(list["items"][0]["status"]["allocatable"]["cpu"], "8");
  EXPECT_NE(kubectl_ok({"label", "node", "n1", "weft.dev/rdma=ib"}).find("node/n1 labeled"), std::string::npos);
  EXPECT_NE(kubectl_ok({"annotate", "node", "n1", "weft.dev/load={\"cpu\":0.5}"}).find("annotated"), std::string::npos);
  kubectl_ok({"cordon", "n1"});
  json n1 = get(res::nodes(), "", "n1");
  EXPECT_EQ(n1["metadata"]["labels"]["weft.dev/rdma"], "ib");
  EXPECT_EQ(n1["metadata"]["labels"]["kubernetes.io/hostname"], "n1");
  EXPECT_EQ(n1["metadata"]["annotations"]["weft.dev/load"], "{\"cpu\":0.5}");
  EXPECT_EQ(n1["spec"]["unschedulable"], true);
  kubectl_ok({"label", "node", "n1", "weft.dev/rdma-"});
  EXPECT_FALSE(get(res::nodes(), "", "n1")["metadata"]["labels"].contains("weft.dev/rdma"));
  auto [code, out] = api_->kubectl({"label", "node", "n1", "kubernetes.io/hostname=x"});
  EXPECT_NE(code, 0);  // exists without --overwrite
  EXPECT_NE(out.find("already has a value"), std::string::npos) << out;
  EXPECT_EQ(json::parse(kubectl_ok({"get", "nodes", "-l", "kubernetes.io/hostname=n2", "-o", "json"}))["items"].size(),
            1u);
}

TEST_F(KubectlTest, ApplyPodAndPodGroupThenReapplyChanges) {
  std::string pod = R"(apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web}
spec:
  containers:
  - name: c
    image: nginx:1.25
    ports: [{containerPort: 80}]
)";
  write_file(dir_.file("pod.yaml"), pod);
  EXPECT_NE(kubectl_ok({"apply", "-f", dir_.file("pod.yaml")}).find("pod/web created"), std::string::npos);
  std::string changed = std::regex_replace(pod, std::regex("app: web"), "app: web, tier: front");
  changed = std::regex_replace(changed, std::regex("nginx:1.25"), "nginx:1.26");
  write_file(dir_.file("pod.yaml"), changed);
  EXPECT_NE(kubectl_ok({"apply", "--dry-run=server", "-f", dir_.file("pod.yaml")}).find("server dry run"),
            std::string::npos);
  EXPECT_FALSE(get(res::pods(), "default", "web")["metadata"]["labels"].contains("tier"));
  EXPECT_NE(kubectl_ok({"apply", "-f", dir_.file("pod.yaml")}).find("pod/web configured"), std::string::npos);
  json web = get(res::pods(), "default", "web");
  EXPECT_EQ(web["metadata"]["labels"]["tier"], "front");
  EXPECT_EQ(web["spec"]["containers"][0]["image"], "nginx:1.26");
  EXPECT_EQ(web["spec"]["containers"][0]["ports"][0]["containerPort"], 80);
  EXPECT_NE(kubectl_ok({"apply", "-f", dir_.file("pod.yaml")}).find("unchanged"), std::string::npos);

  std::string group = R"(apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: train}
spec:
  minMember: 4
  queue: default
  networkTopology: {mode: hard, highestTierAllowed: 1}
)";
  write_file(dir_.file("pg.yaml"), group);
  EXPECT_NE(kubectl_ok({"apply", "-f", dir_.file("pg.yaml")}).find("podgroup.scheduling.volcano.sh/train created"),
            std::string::npos);
  write_file(dir_.file("pg.yaml"), std::regex_replace(group, std::regex("minMember: 4"), "minMember: 8"));
  kubectl_ok({"apply", "-f", dir_.file("pg.yaml")});
  json pg = get(res::podgroups(), "default", "train");
  EXPECT_EQ(pg["spec"]["minMember"], 8);
  EXPECT_EQ(pg["spec"]["networkTopology"]["mode"], "hard");
  EXPECT_EQ(pg["metadata"]["generation"], 2);
  EXPECT_NE(kubectl_ok({"get", "podgroups.scheduling.volcano.sh"}).find("train"), std::string::npos);
  // A pod in a namespace that does not exist: the real NotFound.
  write_file(dir_.file("lost.yaml"), std::regex_replace(pod, std::regex("name: web"), "name: lost\n  namespace: nowhere"));
  auto [code, out] = api_->kubectl({"apply", "-f", dir_.file("lost.yaml")});
  EXPECT_NE(code, 0);
  EXPECT_NE(out.find("namespaces \"nowhere\" not found"), std::string::npos) << out;
}

TEST_F(KubectlTest, GetPodsWatchSeesLaterChanges) {
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "first"}}},
              {"spec", {{"containers", {{{"name", "c"}, {"image", "x"}}}}}}};
  ASSERT_TRUE(api_->client().create(res::pods(), "default", pod));
  weft::testing::Process watch({.argv = {"kubectl", "--kubeconfig", api_->kubeconfig(), "get", "pods", "-w",
                                         "--output-watch-events"},
                                .keep_stdin_open = false});
  ASSERT_TRUE(watch.wait_for_line(std::regex("first"), milliseconds(15000))) << watch.output();
  pod["metadata"]["name"] = "second";
  ASSERT_TRUE(api_->client().create(res::pods(), "default", pod));
  EXPECT_TRUE(watch.wait_for_line(std::regex("ADDED +second"), milliseconds(15000))) << watch.output();
  ASSERT_TRUE(api_->client().remove(res::pods(), "default", "first"));
  EXPECT_TRUE(watch.wait_for_line(std::regex("DELETED +first"), milliseconds(15000))) << watch.output();
  watch.stop();
}

TEST_F(KubectlTest, DrainStopsAtTheBudgetAndDrainsWithoutIt) {
  auto& c = api_->client();
  for (const std::string name : {"db-0", "db-1"}) {
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}, {"labels", {{"app", "db"}}}}},
                {"spec", {{"containers", {{{"name", "c"}, {"image", "x"}}}}}}};
    ASSERT_TRUE(c.create(res::pods(), "default", pod));
    ASSERT_TRUE(c.bind("default", name, "n1"));
    ASSERT_TRUE(c.patch(res::pods(), "default", name,
                        {{"status", {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}},
                        kube::PatchType::Merge, "status"));
  }
  json pdb = {{"apiVersion", "policy/v1"}, {"kind", "PodDisruptionBudget"}, {"metadata", {{"name", "db"}}},
              {"spec", {{"minAvailable", 2}, {"selector", {{"matchLabels", {{"app", "db"}}}}}}}};
  ASSERT_TRUE(c.create(res::poddisruptionbudgets(), "default", pdb));
  auto [code, out] = api_->kubectl({"drain", "n1", "--force", "--ignore-daemonsets", "--timeout=6s"});
  EXPECT_NE(code, 0) << out;
  EXPECT_NE(out.find("Cannot evict pod as it would violate the pod's disruption budget."), std::string::npos) << out;
  EXPECT_EQ(get(res::nodes(), "", "n1")["spec"]["unschedulable"], true);
  EXPECT_TRUE(c.get(res::pods(), "default", "db-0"));
  bool evictions = false;
  for (const auto& r : api_->requests())
    if (r["path"] == "/api/v1/namespaces/default/pods/db-0/eviction" && r["status"] == 429) evictions = true;
  EXPECT_TRUE(evictions) << "kubectl drain did not use the Eviction API";

  ASSERT_TRUE(c.remove(res::poddisruptionbudgets(), "default", "db"));
  std::string drained = kubectl_ok({"drain", "n1", "--force", "--ignore-daemonsets", "--timeout=30s"});
  EXPECT_NE(drained.find("node/n1 drained"), std::string::npos) << drained;
  auto left = c.list(res::pods(), "", kube::ListOptions{"", "spec.nodeName=n1"});
  ASSERT_TRUE(left);
  EXPECT_TRUE(left->items.empty());
}

const char* kTokens = R"(
- token: agent-n1
  user: system:node:n1
  groups: [system:nodes]
  rules:
  - {verbs: [get, list, watch, patch], apiGroups: [""], resources: [nodes]}
  nodeRestriction: {node: n1, keyPrefixes: [weft.dev/]}
- token: admin
  user: admin
  rules:
  - {verbs: ["*"], apiGroups: ["*"], resources: ["*"]}
)";

TEST(KubeLiteTokens, AgentTokenMayChangeOnlyItsOwnWeftKeys) {
  WEFT_SKIP_UNLESS(need_all());
  TempDir dir("kube-lite-tokens");
  write_file(dir.file("state.yaml"), kNodes);
  write_file(dir.file("tokens.yaml"), kTokens);
  KubeLite api({.state = dir.file("state.yaml"), .tokens = dir.file("tokens.yaml")});
  ASSERT_EQ(api.error(), "");
  auto anonymous = api.client().get(res::nodes(), "", "n1");
  ASSERT_FALSE(anonymous);
  EXPECT_EQ(anonymous.error().code, 401);
  auto agent = api.client_for_token("agent-n1");
  EXPECT_TRUE(agent->patch(res::nodes(), "", "n1", {{"metadata", {{"labels", {{"weft.dev/rdma", "ib"}}}}}}));
  auto other_node = agent->patch(res::nodes(), "", "n2", {{"metadata", {{"labels", {{"weft.dev/rdma", "ib"}}}}}});
  ASSERT_FALSE(other_node);
  EXPECT_EQ(other_node.error().code, 403);
  auto other_key = agent->patch(res::nodes(), "", "n1", {{"metadata", {{"labels", {{"role", "x"}}}}}});
  ASSERT_FALSE(other_key);
  EXPECT_EQ(other_key.error().code, 403);
  auto pods = agent->list(res::pods(), "default");
  ASSERT_FALSE(pods);
  EXPECT_NE(pods.message().find("pods is forbidden: User \"system:node:n1\" cannot list resource \"pods\""),
            std::string::npos)
      << pods.message();
  // (kubectl is not used here: client-go sends a kubeconfig's credentials only over TLS,
  // and kube-lite serves plain HTTP.)
  auto admin = api.client_for_token("admin");
  EXPECT_TRUE(admin->patch(res::nodes(), "", "n2", {{"metadata", {{"labels", {{"role", "x"}}}}}}));
  std::map<std::string, int> by_user;
  for (const auto& r : api.requests()) ++by_user[r["user"].get<std::string>()];
  EXPECT_GT(by_user["system:node:n1"], 0);
  EXPECT_GT(by_user["admin"], 0);
}

// The Workload API's PodGroups and Workloads are served at v1alpha3 and v1beta1 as one set
// of objects: created in one version, read and watched in either, each in its own version.
TEST_F(KubectlTest, PodGroupsAreOneSetOfObjectsInEveryServedVersion) {
  write_file(dir_.file("pg.yaml"), R"(apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: pg1, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: Workload
metadata: {name: w1, namespace: default}
spec:
  podGroupTemplates: [{name: t, schedulingPolicy: {basic: {}}}]
)");
  std::string out = kubectl_ok({"apply", "-f", dir_.file("pg.yaml")});
  EXPECT_NE(out.find("podgroup.scheduling.k8s.io/pg1 created"), std::string::npos) << out;
  for (const char* version : {"v1alpha3", "v1beta1"}) {
    const std::string resource = std::string("podgroups.") + version + ".scheduling.k8s.io";
    EXPECT_EQ(kubectl_ok({"get", resource, "pg1", "-o", "jsonpath={.apiVersion} {.spec.schedulingPolicy.gang.minCount}"}),
              std::string("scheduling.k8s.io/") + version + " 2\n");
    EXPECT_EQ(kubectl_ok({"get", std::string("workloads.") + version + ".scheduling.k8s.io", "-o", "name"}),
              "workload.scheduling.k8s.io/w1\n");
  }
  EXPECT_NE(kubectl_ok({"apply", "-f", dir_.file("pg.yaml")}).find("pg1 unchanged"), std::string::npos);
  auto [code, refused] = api_->kubectl({"get", "compositepodgroups.v1beta1.scheduling.k8s.io"});
  EXPECT_NE(code, 0) << "CompositePodGroup is served at v1alpha3 only: " << refused;
}

TEST_F(KubectlTest, ApplyAndGetTheStorageKinds) {
  write_file(dir_.file("storage.yaml"), R"(apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-n1}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/disk}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [n1]}]
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 5Gi}}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1}
spec:
  drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}}]
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {attachRequired: true}
)");
  std::string out = kubectl_ok({"apply", "-f", dir_.file("storage.yaml")});
  for (const char* created : {"storageclass.storage.k8s.io/local created", "persistentvolume/pv-n1 created",
                              "persistentvolumeclaim/data created", "csinode.storage.k8s.io/n1 created",
                              "csidriver.storage.k8s.io/ebs.csi.aws.com created"})
    EXPECT_NE(out.find(created), std::string::npos) << out;
  EXPECT_NE(kubectl_ok({"apply", "-f", dir_.file("storage.yaml")}).find("persistentvolume/pv-n1 unchanged"),
            std::string::npos);
  json pv = json::parse(kubectl_ok({"get", "pv", "pv-n1", "-o", "json"}));
  EXPECT_EQ(pv["spec"]["persistentVolumeReclaimPolicy"], "Retain");
  EXPECT_EQ(pv["status"]["phase"], "Pending");
  json pvc = json::parse(kubectl_ok({"get", "pvc", "-n", "default", "-o", "json"}));
  ASSERT_EQ(pvc["items"].size(), 1u);
  EXPECT_EQ(pvc["items"][0]["spec"]["volumeMode"], "Filesystem");
  EXPECT_EQ(json::parse(kubectl_ok({"get", "sc", "local", "-o", "json"}))["volumeBindingMode"], "WaitForFirstConsumer");
  EXPECT_EQ(json::parse(kubectl_ok({"get", "csinodes", "-o", "json"}))["items"][0]["spec"]["drivers"][0]["allocatable"]["count"],
            25);
  // The class's binding mode is immutable: the server says so through kubectl.
  write_file(dir_.file("sc.yaml"), R"(apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: Immediate
)");
  auto [code, msg] = api_->kubectl({"apply", "-f", dir_.file("sc.yaml")});
  EXPECT_NE(code, 0);
  EXPECT_NE(msg.find("volumeBindingMode: Invalid value: \"Immediate\": field is immutable"), std::string::npos) << msg;
  // Binding the claim as the PV controller would, through the status subresource.
  kubectl_ok({"patch", "pvc", "data", "-n", "default", "--type=merge", "-p", R"({"spec":{"volumeName":"pv-n1"}})"});
  kubectl_ok({"patch", "pvc", "data", "-n", "default", "--subresource=status", "--type=merge", "-p",
              R"({"status":{"phase":"Bound"}})"});
  json bound = get(res::persistentvolumeclaims(), "default", "data");
  EXPECT_EQ(bound["spec"]["volumeName"], "pv-n1");
  EXPECT_EQ(bound["status"]["phase"], "Bound");
}

}  // namespace
}  // namespace weft::kube_lite
