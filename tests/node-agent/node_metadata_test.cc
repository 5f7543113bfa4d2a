#include "node-agent/daemon/node_metadata.h"

#include <gtest/gtest.h>

#include "kube/load_annotation.h"
#include "tests/node-agent/fakes.h"

namespace weft::agent {
namespace {

using namespace std::chrono_literals;
using testing::make_ib;
using testing::make_load;
using testing::make_port;

nlohmann::json node_with(nlohmann::json labels, nlohmann::json annotations = nlohmann::json::object()) {
  return {{"metadata", {{"name", "n1"}, {"labels", labels}, {"annotations", annotations}}}};
}

TEST(NodeMetadata, LabelsFromTheProbeAndEveryPortInTheAnnotation) {
  auto ib = make_ib("0xfe80000000000000", "0x0000000000000a01", "0x0000000000000b01",
                    {make_port("mlx5_0", 1, "ACTIVE", 100, "0x1"), make_port("mlx5_1", 1, "ACTIVE", 100, "0x2"),
                     make_port("mlx5_2", 1, "DOWN", 0, "0x3")});
  ib.labels["example.com/not-ours"] = "x";   // never written, even if a collector offered it
  auto m = desired_ib_metadata(ib);
  EXPECT_EQ(m.labels.count("example.com/not-ours"), 0u);
  EXPECT_EQ(m.labels["weft.dev/rdma"], "ib");
  EXPECT_EQ(m.labels["weft.dev/ib-fabric"], "0xfe80000000000000");
  EXPECT_EQ(m.labels["weft.dev/ib-leaf"], "0x0000000000000a01");
  EXPECT_EQ(m.labels["weft.dev/ib-spine"], "0x0000000000000b01");
  EXPECT_EQ(m.labels["weft.dev/ib-rate-gbps"], "200");
  auto ports = nlohmann::json::parse(m.annotations[keys::kPortsAnnotation]);
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[2]["state"], "DOWN");
}

// weft.dev/nvlink-domain follows GPU feature discovery's nvidia.com/gpu.clique on the same
// Node, and goes when the clique label goes.
TEST(NodeMetadata, NvlinkDomainFollowsTheGpuCliqueLabel) {
  auto ib = make_ib("0xf", "0xa", "0xb", {make_port("mlx5_0", 1, "ACTIVE", 100, "0x1")});
  const auto m = desired_ib_metadata(ib);
  PatchInputs in;
  in.ib = &m;
  const std::string clique = "4f1b6c3e-1d2a-4c5b-9e8f-0a1b2c3d4e5f.7";
  auto patch = merge_patch_for(node_with({{"nvidia.com/gpu.clique", clique}}), in);
  EXPECT_EQ(patch["metadata"]["labels"]["weft.dev/nvlink-domain"], clique);
  auto gone = merge_patch_for(node_with({{"weft.dev/nvlink-domain", clique}}), in);
  EXPECT_TRUE(gone["metadata"]["labels"]["weft.dev/nvlink-domain"].is_null()) << gone.dump();
  auto bad = merge_patch_for(node_with({{"nvidia.com/gpu.clique", "not a label value!"}}), in);
  EXPECT_FALSE(bad["metadata"]["labels"].contains("weft.dev/nvlink-domain"));
}

TEST(NodeMetadata, NoHcaIsRdmaNoneOnly) {
  auto m = desired_ib_metadata(make_ib("", "", "", {}));
  EXPECT_EQ(m.labels.size(), 1u);
  EXPECT_EQ(m.labels["weft.dev/rdma"], "none");
  EXPECT_TRUE(m.annotations.empty());
}

TEST(NodeMetadata, InvalidLabelValueIsLeftOutAndNamed) {
  std::string skipped;
  auto m = desired_ib_metadata(make_ib("fabric with spaces", "0x1", "", {make_port("d", 1, "ACTIVE", 25.5, "0x1")}),
                               &skipped);
  EXPECT_EQ(m.labels.count("weft.dev/ib-fabric"), 0u);
  EXPECT_NE(skipped.find("weft.dev/ib-fabric"), std::string::npos);
  EXPECT_EQ(m.labels["weft.dev/ib-rate-gbps"], "25.5");
}

TEST(NodeMetadata, PatchSetsChangedNullsStaleAndLeavesForeignKeys) {
  auto ib = desired_ib_metadata(make_ib("0xf", "0xa", "", {make_port("d", 1, "ACTIVE", 100, "0x1")}));
  auto node = node_with({{"kubernetes.io/hostname", "n1"},
                         {"weft.dev/rdma", "ib"},
                         {"weft.dev/ib-fabric", "0xf"},
                         {"weft.dev/ib-leaf", "0xold"},
                         {"weft.dev/ib-spine", "0xb"}},
                        {{"other.io/x", "y"}});
  PatchInputs in;
  in.ib = &ib;
  auto patch = merge_patch_for(node, in);
  ASSERT_FALSE(patch.is_null());
  const auto& labels = patch["metadata"]["labels"];
  EXPECT_EQ(labels["weft.dev/ib-leaf"], "0xa");
  EXPECT_TRUE(labels["weft.dev/ib-spine"].is_null());
  EXPECT_TRUE(labels.contains("weft.dev/ib-spine"));
  EXPECT_FALSE(labels.contains("kubernetes.io/hostname"));
  EXPECT_FALSE(labels.contains("weft.dev/rdma"));   // unchanged
  EXPECT_FALSE(patch["metadata"]["annotations"].contains("other.io/x"));
  // Applying it then asking again gives nothing to do.
  node.merge_patch(patch);
  EXPECT_TRUE(merge_patch_for(node, in).is_null());
  EXPECT_EQ(node["metadata"]["labels"]["kubernetes.io/hostname"], "n1");
}

TEST(NodeMetadata, NoIbProbeYetTouchesNoIbKey) {
  auto node = node_with({{"weft.dev/ib-leaf", "0xa"}});
  PatchInputs in;
  EXPECT_TRUE(merge_patch_for(node, in).is_null());
}

TEST(NodeMetadata, LoadAnnotationOnlyOnBigChangeOrHeartbeat) {
  const auto t0 = std::chrono::system_clock::from_time_t(1'800'000'000);
  auto node = node_with({}, {{keys::kLoadAnnotation, load_annotation(make_load(0.30, 0.50), t0)}});
  PatchInputs in;
  in.heartbeat = 60s;
  // Small move, within the heartbeat: nothing.
  in.load = load_annotation(make_load(0.33, 0.52), t0 + 10s);
  in.load_at = t0 + 10s;
  EXPECT_TRUE(merge_patch_for(node, in).is_null());
  // More than 5 points of CPU: written.
  in.load = load_annotation(make_load(0.36, 0.50), t0 + 10s);
  auto p = merge_patch_for(node, in);
  ASSERT_FALSE(p.is_null());
  EXPECT_EQ(kube::decode_load_annotation(p["metadata"]["annotations"][keys::kLoadAnnotation].get<std::string>())->cpu,
            0.36);
  // Small move, but the heartbeat has passed: written.
  in.load = load_annotation(make_load(0.31, 0.50), t0 + 61s);
  in.load_at = t0 + 61s;
  EXPECT_FALSE(merge_patch_for(node, in).is_null());
  // A broken annotation is replaced.
  auto broken = node_with({}, {{keys::kLoadAnnotation, "{not json"}});
  in.load_at = t0 + 1s;
  EXPECT_FALSE(merge_patch_for(broken, in).is_null());
}

TEST(NodeMetadata, LoadAnnotationShape) {
  const auto t = std::chrono::system_clock::from_time_t(1'800'000'000);
  auto j = nlohmann::json::parse(load_annotation(make_load(0.374, 0.5249), t));
  EXPECT_EQ(j["cpu"], 0.37);
  EXPECT_EQ(j["memory"], 0.52);
  EXPECT_EQ(j["window_s"], 5);
  EXPECT_EQ(j["source"], "procfs");
  EXPECT_EQ(j["at"], "2027-01-15T08:00:00Z");
  auto back = kube::decode_load_annotation(load_annotation(make_load(0.374, 0.5249), t));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->cpu_at, t);
  EXPECT_EQ(back->memory_at, t);
}

}  // namespace
}  // namespace weft::agent
