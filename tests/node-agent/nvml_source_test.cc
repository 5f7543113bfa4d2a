// The NVLink domain from NVML (collectors/nvlink) against a fake libnvidia-ml built by these
// tests (fake_nvml.cc), and its precedence over GPU feature discovery's label.
#include <cstdlib>

#include <gtest/gtest.h>

#include "collectors/nvlink/nvlink.h"
#include "node-agent/daemon/ib_adapter.h"
#include "node-agent/daemon/node_metadata.h"

namespace weft::agent {
namespace {

const std::string kUuid = "4f1b6c3e1d2a4c5b9e8f0a1b2c3d4e5f";
const std::string kDomain = "4f1b6c3e-1d2a-4c5b-9e8f-0a1b2c3d4e5f.7";

// One GPU of FAKE_NVML_GPUS: NVML_GPU_FABRIC_STATE_* (3 completed), its status, clique.
std::string gpu(int state, int status, const std::string& uuid, int clique) {
  return std::to_string(state) + "," + std::to_string(status) + "," + uuid + "," + std::to_string(clique) + ";";
}

nvlink::NvlinkReading read_with(const std::string& gpus, const char* v1_only = "0", const char* init = "0") {
  setenv("FAKE_NVML_GPUS", gpus.c_str(), 1);
  setenv("FAKE_NVML_V1_ONLY", v1_only, 1);
  setenv("FAKE_NVML_INIT", init, 1);
  return nvlink::make_nvml_source(FAKE_NVML_LIBRARY)->read();
}

nlohmann::json node_with_clique(const std::string& clique) {
  return {{"metadata", {{"name", "n1"}, {"labels", {{"nvidia.com/gpu.clique", clique}}}}}};
}

// What the agent writes for weft.dev/nvlink-domain given NVML's reading and the Node's
// GFD label: the value, or "" when it removes or leaves out the key.
std::string published(const nvlink::NvlinkReading& r, const std::string& gfd_label) {
  IbSnapshot s;
  s.rdma = "ib";
  add_nvlink(r, s);
  const auto m = desired_ib_metadata(s);
  PatchInputs in;
  in.ib = &m;
  auto node = gfd_label.empty() ? nlohmann::json{{"metadata", {{"name", "n1"}}}} : node_with_clique(gfd_label);
  node["metadata"]["labels"]["weft.dev/nvlink-domain"] = "stale";
  const auto patch = merge_patch_for(node, in);
  const auto& v = patch["metadata"]["labels"]["weft.dev/nvlink-domain"];
  return v.is_string() ? v.get<std::string>() : "";
}

TEST(NvmlNvlink, AbsentLibraryIsNotAnAnswerAndTheLabelDecides) {
  auto r = nvlink::make_nvml_source("/nonexistent/libnvidia-ml.so.1")->read();
  EXPECT_FALSE(r.answered);
  EXPECT_NE(r.reason.find("NVML not loaded"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << r.reason;
  EXPECT_EQ(published(r, kDomain), kDomain);
  EXPECT_EQ(published(r, ""), "");
}

TEST(NvmlNvlink, InitFailureIsNotAnAnswer) {
  auto r = read_with(gpu(3, 0, kUuid, 7), "0", "9");   // NVML_ERROR_DRIVER_NOT_LOADED
  EXPECT_FALSE(r.answered);
  EXPECT_NE(r.reason.find("nvmlInit_v2: Driver Not Loaded (9)"), std::string::npos) << r.reason;
  EXPECT_EQ(published(r, kDomain), kDomain);
}

TEST(NvmlNvlink, CompletedCliqueIsTheDomainAndWinsOverTheLabel) {
  std::string four;
  for (int i = 0; i < 4; ++i) four += gpu(3, 0, kUuid, 7);
  auto r = read_with(four);
  ASSERT_TRUE(r.answered) << r.reason;
  EXPECT_EQ(r.domain, kDomain);
  ASSERT_EQ(r.gpus.size(), 4u);
  EXPECT_EQ(r.gpus[3].cluster_uuid, "4f1b6c3e-1d2a-4c5b-9e8f-0a1b2c3d4e5f");
  EXPECT_EQ(published(r, ""), kDomain);
  EXPECT_EQ(published(r, "ffffffff-1d2a-4c5b-9e8f-0a1b2c3d4e5f.1"), kDomain);   // a stale GFD label loses
  // An older driver: the versioned call refuses version 2, the first one answers.
  auto old = read_with(four, "1");
  EXPECT_EQ(old.domain, kDomain) << old.reason;
}

TEST(NvmlNvlink, RegistrationNotDoneMeansNoDomainEvenWithALabel) {
  auto progress = read_with(gpu(2, 0, kUuid, 7) + gpu(1, 0, kUuid, 7));
  ASSERT_TRUE(progress.answered);
  EXPECT_EQ(progress.domain, "");
  EXPECT_NE(progress.reason.find("GPU 0: in progress, GPU 1: not started"), std::string::npos) << progress.reason;
  EXPECT_EQ(published(progress, kDomain), "");
  // Completed with an error status, a zero cluster UUID, or no fabric support: not registered.
  auto failed = read_with(gpu(3, 999, kUuid, 7) + gpu(3, 0, std::string(32, '0'), 7) + gpu(0, 0, kUuid, 7));
  ASSERT_TRUE(failed.answered);
  EXPECT_EQ(failed.domain, "");
  EXPECT_EQ(failed.gpus[2].state, "not supported");
  EXPECT_NE(failed.gpus[0].error.find("registration status"), std::string::npos);
  // GPUs still registering beside registered ones do not hold the domain back (GFD's rule).
  auto mixed = read_with(gpu(3, 0, kUuid, 7) + gpu(2, 0, kUuid, 7));
  EXPECT_EQ(mixed.domain, kDomain);
}

TEST(NvmlNvlink, GpusInDifferentCliquesGiveNoDomainAndSayWhich) {
  auto r = read_with(gpu(3, 0, kUuid, 7) + gpu(3, 0, kUuid, 7) + gpu(3, 0, kUuid, 8));
  ASSERT_TRUE(r.answered);
  EXPECT_EQ(r.domain, "");
  EXPECT_NE(r.reason.find("2 NVLink cliques"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find(kDomain + " on GPUs 0,1"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("0a1b2c3d4e5f.8 on GPUs 2"), std::string::npos) << r.reason;
  EXPECT_EQ(published(r, kDomain), "");
  IbSnapshot s;
  add_nvlink(r, s);
  EXPECT_EQ(s.json["nvlink"]["source"], "nvml");
  EXPECT_TRUE(s.json["nvlink"]["domain"].is_null());
  EXPECT_EQ(s.json["nvlink"]["gpus"].size(), 3u);
}

}  // namespace
}  // namespace weft::agent
