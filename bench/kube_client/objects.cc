#include "bench/kube_client/objects.h"

#include <cstdio>
#include <functional>

namespace weft::bench {

using nlohmann::json;

namespace {

std::string hex(int v, int width) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "%0*x", width, static_cast<unsigned>(v));
  return buf;
}

std::string uid(int kind, int i) {
  return hex(kind * 7919 + i, 8) + "-" + hex(i % 65536, 4) + "-4" + hex(i % 4096, 3) + "-a" + hex(kind, 3) + "-" +
         hex(i * 31, 12);
}

json managed_fields(const std::string& manager, const std::string& op) {
  return json::array({{{"manager", manager},
                       {"operation", op},
                       {"apiVersion", "v1"},
                       {"time", "2026-11-20T10:11:12Z"},
                       {"fieldsType", "FieldsV1"},
                       {"fieldsV1",
                        {{"f:metadata", {{"f:labels", {{".", json::object()}, {"f:app", json::object()}}}}},
                         {"f:spec", {{"f:containers", {{"k:{\"name\":\"main\"}", {{".", json::object()}}}}}}}}}},
                      {{"manager", "kubelet"},
                       {"operation", "Update"},
                       {"apiVersion", "v1"},
                       {"time", "2026-11-20T10:11:20Z"},
                       {"fieldsType", "FieldsV1"},
                       {"subresource", "status"},
                       {"fieldsV1", {{"f:status", {{"f:conditions", json::object()}, {"f:phase", json::object()}}}}}}});
}

}  // namespace

json make_node(int i, int rv) {
  std::string name = "gpu-node-" + hex(i, 5);
  json images = json::array();
  for (int k = 0; k < 20; ++k) {
    images.push_back({{"names", json::array({"registry.example.com/ml/image-" + std::to_string(k) + "@sha256:" +
                                             hex(k * 131 + i, 16) + hex(k, 48),
                                         "registry.example.com/ml/image-" + std::to_string(k) + ":v1." +
                                             std::to_string(k)})},
                      {"sizeBytes", 500000000 + k * 1234567}});
  }
  json conditions = json::array();
  for (const char* t : {"MemoryPressure", "DiskPressure", "PIDPressure", "Ready"}) {
    bool ready = std::string(t) == "Ready";
    conditions.push_back({{"type", t},
                          {"status", ready ? "True" : "False"},
                          {"lastHeartbeatTime", "2026-11-23T01:00:00Z"},
                          {"lastTransitionTime", "2026-11-01T00:00:00Z"},
                          {"reason", ready ? "KubeletReady" : std::string("KubeletHasNo") + t},
                          {"message", ready ? "kubelet is posting ready status" : "kubelet has no pressure"}});
  }
  json resources = {{"cpu", "128"}, {"memory", "2113464Mi"}, {"nvidia.com/gpu", "8"}, {"rdma/ib", "8"},
                    {"ephemeral-storage", "3750Gi"}, {"pods", "110"}, {"hugepages-1Gi", "0"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata",
           {{"name", name},
            {"uid", uid(1, i)},
            {"resourceVersion", std::to_string(rv)},
            {"creationTimestamp", "2026-11-01T00:00:00Z"},
            {"labels",
             {{"kubernetes.io/hostname", name},
              {"kubernetes.io/os", "linux"},
              {"kubernetes.io/arch", "amd64"},
              {"node.kubernetes.io/instance-type", "hgx-h100-8"},
              {"topology.kubernetes.io/zone", "zone-" + std::to_string(i % 4)},
              {"weft.dev/rdma", "ib"},
              {"weft.dev/ib-fabric", "0xfe80000000000000"},
              {"weft.dev/ib-leaf", "0x0002c90300" + hex(i / 32, 6)},
              {"weft.dev/ib-spine", "0x0002c90400" + hex(i / 512, 6)},
              {"weft.dev/ib-rate-gbps", "3200"},
              {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}},
            {"annotations",
             {{"node.alpha.kubernetes.io/ttl", "0"},
              {"volumes.kubernetes.io/controller-managed-attach-detach", "true"},
              {"weft.dev/load", R"({"cpu":0.37,"memory":0.52,"window_s":60,"source":"ebpf","at":"2026-11-23T01:00:00Z"})"}}},
            {"managedFields", managed_fields("weft-agent", "Apply")}}},
          {"spec", {{"podCIDR", "10.244." + std::to_string(i % 256) + ".0/24"}, {"providerID", "metal://" + name}}},
          {"status",
           {{"capacity", resources},
            {"allocatable", resources},
            {"conditions", conditions},
            {"addresses", json::array({{{"type", "InternalIP"}, {"address", "10.0." + std::to_string(i / 256) + "." +
                                                                                  std::to_string(i % 256)}},
                                       {{"type", "Hostname"}, {"address", name}}})},
            {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", 10250}}}}},
            {"nodeInfo",
             {{"machineID", hex(i, 32)},
              {"systemUUID", uid(2, i)},
              {"bootID", uid(3, i)},
              {"kernelVersion", "6.8.0-49-generic"},
              {"osImage", "Ubuntu 24.04.1 LTS"},
              {"containerRuntimeVersion", "containerd://1.7.22"},
              {"kubeletVersion", "v1.31.2"},
              {"kubeProxyVersion", "v1.31.2"},
              {"operatingSystem", "linux"},
              {"architecture", "amd64"}}},
            {"images", images}}}};
}

json make_pod(int i, int nodes, int rv) {
  std::string job = "train-" + hex(i / 16, 5);
  std::string name = job + "-worker-" + std::to_string(i % 16);
  json env = json::array();
  for (const char* k : {"MASTER_ADDR", "MASTER_PORT", "WORLD_SIZE", "NCCL_IB_HCA", "NCCL_DEBUG"}) {
    env.push_back({{"name", k}, {"value", std::string(k) == "MASTER_ADDR" ? job + "-worker-0" : "mlx5_0,mlx5_1"}});
  }
  env.push_back({{"name", "POD_NAME"}, {"valueFrom", {{"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.name"}}}}}});
  json container = {
      {"name", "main"},
      {"image", "registry.example.com/ml/trainer:2026.11"},
      {"command", json::array({"torchrun", "--nproc-per-node=8", "train.py"})},
      {"env", env},
      {"ports", json::array({{{"containerPort", 29500}, {"name", "rdzv"}, {"protocol", "TCP"}}})},
      {"resources",
       {{"requests", {{"cpu", "96"}, {"memory", "1600Gi"}, {"nvidia.com/gpu", "8"}, {"rdma/ib", "8"}}},
        {"limits", {{"nvidia.com/gpu", "8"}, {"rdma/ib", "8"}}}}},
      {"volumeMounts", json::array({{{"name", "dshm"}, {"mountPath", "/dev/shm"}},
                                    {{"name", "kube-api-access-" + hex(i % 4096, 5)},
                                     {"mountPath", "/var/run/secrets/kubernetes.io/serviceaccount"},
                                     {"readOnly", true}}})},
      {"terminationMessagePath", "/dev/termination-log"},
      {"terminationMessagePolicy", "File"},
      {"imagePullPolicy", "IfNotPresent"}};
  json conditions = json::array();
  for (const char* t : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
    conditions.push_back({{"type", t}, {"status", "True"}, {"lastProbeTime", nullptr},
                          {"lastTransitionTime", "2026-11-22T10:00:00Z"}});
  }
  bool bound = i % 10 != 0;
  std::string node = "gpu-node-" + hex(i % nodes, 5);
  json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata",
       {{"name", name},
        {"namespace", "team-" + std::to_string(i % 20)},
        {"uid", uid(4, i)},
        {"resourceVersion", std::to_string(rv)},
        {"creationTimestamp", "2026-11-22T10:00:00Z"},
        {"labels", {{"app", "trainer"}, {"job", job}, {"volcano.sh/job-name", job}, {"role", "worker"}}},
        {"annotations", {{"scheduling.k8s.io/group-name", job}, {"weft.dev/ib-cluster", "same"}}},
        {"ownerReferences", json::array({{{"apiVersion", "batch.volcano.sh/v1alpha1"},
                                          {"kind", "Job"},
                                          {"name", job},
                                          {"uid", uid(5, i / 16)},
                                          {"controller", true},
                                          {"blockOwnerDeletion", true}}})},
        {"managedFields", managed_fields("volcano-controller", "Update")}}},
      {"spec",
       {{"schedulerName", "weft"},
        {"priorityClassName", "training"},
        {"priority", 1000},
        {"restartPolicy", "OnFailure"},
        {"serviceAccountName", "default"},
        {"terminationGracePeriodSeconds", 30},
        {"dnsPolicy", "ClusterFirst"},
        {"containers", json::array({container})},
        {"volumes", json::array({{{"name", "dshm"}, {"emptyDir", {{"medium", "Memory"}}}},
                                 {{"name", "kube-api-access-" + hex(i % 4096, 5)},
                                  {"projected", {{"defaultMode", 420}, {"sources", json::array({{{"serviceAccountToken",
                                      {{"expirationSeconds", 3607}, {"path", "token"}}}}})}}}}})},
        {"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}},
                                     {{"key", "node.kubernetes.io/not-ready"}, {"operator", "Exists"},
                                      {"effect", "NoExecute"}, {"tolerationSeconds", 300}}})},
        {"affinity",
         {{"nodeAffinity",
           {{"requiredDuringSchedulingIgnoredDuringExecution",
             {{"nodeSelectorTerms", json::array({{{"matchExpressions", json::array({{{"key", "weft.dev/rdma"},
                                                                                     {"operator", "In"},
                                                                                     {"values", json::array({"ib"})}}})}}})}}}}}}}}},
      {"status",
       {{"phase", bound ? "Running" : "Pending"},
        {"qosClass", "Burstable"},
        {"conditions", conditions}}}};
  if (bound) {
    pod["spec"]["nodeName"] = node;
    pod["status"]["hostIP"] = "10.0." + std::to_string((i % nodes) / 256) + "." + std::to_string(i % 256);
    pod["status"]["podIP"] = "10.244." + std::to_string(i % 256) + "." + std::to_string(i / 256 % 256);
    pod["status"]["startTime"] = "2026-11-22T10:00:05Z";
    pod["status"]["containerStatuses"] = json::array({{{"name", "main"},
                                                       {"ready", true},
                                                       {"restartCount", 0},
                                                       {"started", true},
                                                       {"image", "registry.example.com/ml/trainer:2026.11"},
                                                       {"imageID", "sha256:" + hex(i % 97, 56)},
                                                       {"containerID", "containerd://" + hex(i, 64)},
                                                       {"state", {{"running", {{"startedAt", "2026-11-22T10:00:07Z"}}}}}}});
  }
  return pod;
}

std::string make_list_body(const std::string& kind, int count, const std::function<json(int)>& make, int rv) {
  std::string body = R"({"kind":")" + kind + R"(","apiVersion":"v1","metadata":{"resourceVersion":")" +
                     std::to_string(rv) + R"("},"items":[)";
  for (int i = 0; i < count; ++i) {
    if (i) body += ',';
    body += make(i).dump();
  }
  body += "]}";
  return body;
}

}  // namespace weft::bench
