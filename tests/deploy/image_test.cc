// The image scripts/image builds: every binary in it answers --version with the project
// version, and its agent, run with exactly the DaemonSet's user, capabilities and
// read-only root (tests/deploy/as_container.cc), loads the eBPF load backend and probes
// an ibsim fabric; without CAP_BPF it falls back to procfs (the capability is needed).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/deploy/render.h"
#include "tests/support/ibsim.h"
#include "tests/support/process.h"

namespace weft::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// Per process, so that two test runs on one machine do not remove each other's image.
const std::string kImageName = "localhost/weft-image-test-" + std::to_string(getpid());

std::pair<int, std::string> buildah(std::vector<std::string> args, std::chrono::milliseconds timeout = 120s) {
  args.insert(args.begin(), {"buildah", "--storage-driver", "vfs"});
  return run_command(args, timeout);
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class DeployImage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_ = need_tools({"buildah"});
    if (skip_.empty()) skip_ = need_root();   // buildah's vfs storage and chroot
    if (!skip_.empty()) return;
    version_ = project_version();
    const auto start = std::chrono::steady_clock::now();
    auto [code, out] = run_command({source_path("scripts/image"), "--build-dir", WEFT_BINARY_DIR, "--name", kImageName},
                                   180s);
    build_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (code != 0) {
      error_ = "scripts/image failed:\n" + out;
      return;
    }
    image_ = trim(out.substr(out.rfind('\n', out.size() - 2) + 1));
    auto [fc, container] = buildah({"from", "--pull-never", image_});
    if (fc != 0) {
      error_ = "buildah from " + image_ + ": " + container;
      return;
    }
    container_ = trim(container.substr(container.rfind('\n', container.size() - 2) + 1));
    auto [mc, root] = buildah({"mount", container_});
    if (mc != 0) {
      error_ = "buildah mount: " + root;
      return;
    }
    root_ = trim(root);
  }

  static void TearDownTestSuite() {
    if (!container_.empty()) {
      buildah({"umount", container_});
      buildah({"rm", container_});
    }
    if (!image_.empty()) buildah({"rmi", "-f", image_});
  }

  void SetUp() override {
    WEFT_SKIP_UNLESS(skip_);
    ASSERT_EQ(error_, "");
  }

  static std::string skip_, error_, version_, image_, container_, root_;
  static double build_seconds_;
};

std::string DeployImage::skip_, DeployImage::error_, DeployImage::version_, DeployImage::image_,
    DeployImage::container_, DeployImage::root_;
double DeployImage::build_seconds_ = 0;

TEST_F(DeployImage, IsTaggedWithTheProjectVersionAndEveryBinaryAnswersVersion) {
  std::cout << "scripts/image built " << image_ << " in " << build_seconds_ << " s\n";
  EXPECT_EQ(image_, kImageName + ":" + version_);
  auto [ic, label] = buildah({"inspect", "--format", "{{index .OCIv1.Config.Labels \"org.opencontainers.image.version\"}}",
                              image_});
  EXPECT_EQ(trim(label), version_);
  const std::vector<std::vector<std::string>> commands = {
      {"/usr/bin/weft-agent", "--version"},
      {"/usr/bin/weft-agent-daemon", "--version"},
      {"/usr/bin/weft-scheduler", "--version"},
      {"/usr/bin/weft-descheduler", "--version"}};
  for (const auto& c : commands) {
    // As the scheduler and descheduler run: user 65532, no capability, read-only root.
    std::vector<std::string> argv = {binary("tests/deploy/weft-as-container"), "--root", root_, "--caps", "",
                                     "--uid", "65532", "--"};
    argv.insert(argv.end(), c.begin(), c.end());
    auto [code, out] = run_command(argv, 30s);
    EXPECT_EQ(code, 0) << c[0] << ":\n" << out;
    EXPECT_EQ(trim(out), version_) << c[0];
  }
  // Only the binaries and what they load: no shell, nothing from another image.
  EXPECT_FALSE(std::filesystem::exists(root_ + "/usr/bin/sh"));
  EXPECT_TRUE(std::filesystem::exists(root_ + "/etc/libibverbs.d") || !std::filesystem::exists("/etc/libibverbs.d"));
  const std::string packages = read_file(root_ + "/usr/share/doc/weft/packages.txt");
  EXPECT_NE(packages.find("libc.so.6 libc6"), std::string::npos) << packages;
  EXPECT_EQ(packages.find(" unknown"), std::string::npos) << "a file from no Debian package:\n" << packages;
}

struct AgentRun {
  json probe;
  std::string metrics;
  int readyz = 0;
  std::string output;
};

// The DaemonSet's container as the IB overlay renders it.
YAML::Node agent_container() {
  Rendered r = kustomize(source_path("deploy/overlays/rdma-shared-device"));
  if (!r.error.empty()) return YAML::Node();
  YAML::Node ds = find_object(r, "DaemonSet", "weft-agent");
  return ds ? ds["spec"]["template"]["spec"]["containers"][0] : YAML::Node();
}

TEST_F(DeployImage, AgentWithTheDaemonSetPrivilegesLoadsEbpfAndProbesTheFabric) {
  WEFT_SKIP_UNLESS(need_ibsim());
  WEFT_SKIP_UNLESS(need_tools({"kubectl"}));
  if (!std::filesystem::exists("/sys/kernel/btf/vmlinux")) GTEST_SKIP() << "kernel without BTF: no eBPF backend here";
  YAML::Node c = agent_container();
  ASSERT_TRUE(c);
  const YAML::Node sc = c["securityContext"];
  ASSERT_TRUE(sc["readOnlyRootFilesystem"].as<bool>(false));
  ASSERT_FALSE(sc["allowPrivilegeEscalation"].as<bool>(true));
  ASSERT_EQ(sc["capabilities"]["drop"][0].as<std::string>(), "ALL");
  std::string caps;
  for (const auto& cap : sc["capabilities"]["add"]) {
    std::string name = cap.as<std::string>();
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    caps += (caps.empty() ? "" : ",") + name;
  }
  const std::string uid = std::to_string(sc["runAsUser"].as<int>());
  std::vector<std::string> args;
  for (const auto& a : c["args"])
    if (a.as<std::string>().rfind("--listen", 0) != 0) args.push_back(a.as<std::string>());

  std::string error;
  TempDir dir("deploy-agent-fabric");
  write_file(dir.file("fabric.net"), kOneLeafFabric);
  auto sim = IbSim::start(dir.file("fabric.net"), &error);
  ASSERT_TRUE(sim) << error;
  sim->start_sm({.host = "smhost", .priority = 14});
  ASSERT_TRUE(sim->wait_subnet_up(30s)) << sim->sm_output(0);

  auto run_agent = [&](const std::string& with_caps) {
    const int port = free_port();
    std::vector<std::string> argv = {binary("tests/deploy/weft-as-container"), "--root", root_, "--caps", with_caps,
                                     "--uid", uid, "--wd", "/tmp", "--tmp", kUmad2simLibrary,
                                     "--tmp", "/usr/lib/x86_64-linux-gnu/libibmad.so.5",
                                     // umad2sim's own dependencies, which the agent does not have
                                     "--tmp", "/usr/lib/x86_64-linux-gnu/libpthread.so.0",
                                     "--tmp", "/usr/lib/x86_64-linux-gnu/libdl.so.2", "--",
                                     "/usr/bin/" + c["command"][0].as<std::string>()};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* a : {"--listen", "--no-publish"}) argv.push_back(a);
    argv.insert(argv.end() - 1, "127.0.0.1:" + std::to_string(port));
    auto env = sim->env_for("node1");
    env["LD_PRELOAD"] = "/tmp/libumad2sim.so";   // where --tmp put it inside the root
    env["LD_LIBRARY_PATH"] = "/tmp";             // its libibmad
    env["NODE_NAME"] = "node1";
    Process agent({.argv = argv, .env = env, .keep_stdin_open = false});
    AgentRun r;
    const std::string url = "http://127.0.0.1:" + std::to_string(port);
    const auto until = std::chrono::steady_clock::now() + 40s;
    while (std::chrono::steady_clock::now() < until && agent.running()) {
      auto [status, body] = http_get(url + "/probe");
      if (status == 200) {
        r.probe = json::parse(body, nullptr, false);
        if (r.probe.is_object() && !r.probe["ib"].is_null() && !r.probe["load"].is_null()) break;
      }
      std::this_thread::sleep_for(300ms);
    }
    r.readyz = http_get(url + "/readyz").first;
    r.metrics = http_get(url + "/metrics").second;
    agent.stop(3s);
    r.output = agent.output();
    return r;
  };

  AgentRun as_deployed = run_agent(caps);
  ASSERT_TRUE(as_deployed.probe.is_object() && !as_deployed.probe["ib"].is_null()) << as_deployed.output;
  EXPECT_EQ(as_deployed.probe["rdma"], "ib") << as_deployed.probe.dump(2);
  EXPECT_EQ(as_deployed.probe["labels"].value("weft.dev/ib-leaf", ""), "0x0000000000000a01")
      << as_deployed.probe.dump(2);
  EXPECT_EQ(as_deployed.probe["load"].value("source", ""), "ebpf") << as_deployed.output;
  EXPECT_EQ(as_deployed.readyz, 200);
  EXPECT_NE(as_deployed.metrics.find("weft_agent_load_source{source=\"ebpf\"} 1"), std::string::npos);
  EXPECT_NE(as_deployed.metrics.find("weft_ib_port_up{"), std::string::npos);

  // Without CAP_BPF the same agent cannot load its programs and says so: procfs.
  std::string without_bpf = caps;
  without_bpf.erase(without_bpf.find("bpf"), 4);
  AgentRun no_bpf = run_agent(without_bpf);
  ASSERT_TRUE(no_bpf.probe.is_object() && !no_bpf.probe["load"].is_null()) << no_bpf.output;
  EXPECT_EQ(no_bpf.probe["load"].value("source", ""), "procfs") << no_bpf.output;
  EXPECT_EQ(no_bpf.probe["rdma"], "ib");   // the IB probe needs no capability, only the device file
}

}  // namespace
}  // namespace weft::testing
