// kube-lite as a command: bad input ends with one clear line and a non-zero exit,
// --dump on SIGTERM is loadable by --state, injected latency, scale of --state.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kube/client/client.h"
#include "tests/support/kube_lite.h"

namespace weft::kube_lite {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using weft::testing::KubeLite;
using weft::testing::run_command;
using weft::testing::TempDir;
using weft::testing::write_file;
namespace res = weft::kube::resources;

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Runs kube-lite with args; it must fail fast with exactly one line that contains `needle`.
void expect_one_line_failure(const std::vector<std::string>& args, const std::string& needle) {
  std::vector<std::string> argv = {KubeLite::binary_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto start = std::chrono::steady_clock::now();
  auto [code, out] = run_command(argv, milliseconds(10000));
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(9000)) << "kube-lite hung: " << out;
  EXPECT_NE(code, 0) << out;
  EXPECT_NE(code, -1) << "timed out: " << out;
  std::string line = trimmed(out);
  EXPECT_EQ(line.find('\n'), std::string::npos) << "more than one line: " << out;
  EXPECT_NE(line.find(needle), std::string::npos) << out;
  EXPECT_EQ(line.find("listening on"), std::string::npos) << out;
}

TEST(KubeLiteCli, BadInputEndsWithOneLineNamingFileFieldOrAddress) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  TempDir dir("kube-lite-cli");
  write_file(dir.file("broken.yaml"), "apiVersion: v1\nkind: Node\nmetadata:\n  name: [oops\n");
  expect_one_line_failure({"--state", dir.file("broken.yaml")}, dir.file("broken.yaml"));
  write_file(dir.file("unknown.yaml"), "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: d}\n");
  expect_one_line_failure({"--state", dir.file("unknown.yaml")}, "kind StatefulSet");
  expect_one_line_failure({"--state", dir.file("missing.yaml")}, dir.file("missing.yaml"));
  write_file(dir.file("tokens.yaml"), "- user: nobody\n");
  expect_one_line_failure({"--tokens", dir.file("tokens.yaml")}, "field 'token' is missing");
  expect_one_line_failure({"--listen", "127.0.0.1:notaport"}, "127.0.0.1:notaport");
  expect_one_line_failure({"--fail-rate", "2"}, "--fail-rate");
  KubeLite busy;
  ASSERT_EQ(busy.error(), "");
  expect_one_line_failure({"--listen", "127.0.0.1:" + std::to_string(busy.port())},
                          "cannot listen on 127.0.0.1:" + std::to_string(busy.port()));
}

TEST(KubeLiteCli, DumpOnSigtermLoadsBackWithState) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  TempDir dir("kube-lite-dump");
  {
    KubeLite api({.dump = dir.file("dump.json")});
    ASSERT_EQ(api.error(), "");
    auto& c = api.client();
    ASSERT_TRUE(c.create(res::namespaces(), "", {{"metadata", {{"name", "team"}}}}));
    ASSERT_TRUE(c.create(res::nodes(), "", {{"metadata", {{"name", "n1"}, {"labels", {{"weft.dev/rdma", "ib"}}}}}}));
    ASSERT_TRUE(c.create(res::podgroups(), "team",
                         {{"apiVersion", "scheduling.volcano.sh/v1beta1"}, {"kind", "PodGroup"},
                          {"metadata", {{"name", "g"}}}, {"spec", {{"minMember", 3}}}}));
    EXPECT_EQ(api.stop(), 0) << api.output();
  }
  ASSERT_TRUE(std::filesystem::exists(dir.file("dump.json")));
  KubeLite again({.state = dir.file("dump.json")});
  ASSERT_EQ(again.error(), "");
  auto node = again.client().get(res::nodes(), "", "n1");
  ASSERT_TRUE(node) << node.message();
  EXPECT_EQ((*node)["metadata"]["labels"]["weft.dev/rdma"], "ib");
  auto pg = again.client().get(res::podgroups(), "team", "g");
  ASSERT_TRUE(pg) << pg.message();
  EXPECT_EQ((*pg)["spec"]["minMember"], 3);
}

TEST(KubeLiteCli, LatencyIsAddedToEveryRequest) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  KubeLite api({.latency_ms = 150});
  ASSERT_EQ(api.error(), "");
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(api.client().get(res::namespaces(), "", "default"));
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(150));
}

// A cluster of 500 nodes and 20,000 pods from --state, listed in pages as an informer
// would; the full 5,000/100,000 run is in bench/kube_client.
TEST(KubeLiteCli, LargeStateLoadsAndListsInPages) {
  WEFT_SKIP_UNLESS(KubeLite::need());
  TempDir dir("kube-lite-scale");
  const int nodes = 500, pods = 20000;
  {
    std::ofstream out(dir.file("state.json"));
    out << "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
    for (int i = 0; i < nodes; ++i)
      out << (i ? "," : "") << json{{"apiVersion", "v1"}, {"kind", "Node"},
                                    {"metadata", {{"name", "node-" + std::to_string(i)}}},
                                    {"status", {{"allocatable", {{"cpu", "64"}, {"memory", "512Gi"}}}}}}.dump();
    for (int i = 0; i < pods; ++i)
      out << "," << json{{"apiVersion", "v1"}, {"kind", "Pod"},
                         {"metadata", {{"name", "pod-" + std::to_string(i)}, {"namespace", "ns-" + std::to_string(i % 20)},
                                       {"labels", {{"app", "a" + std::to_string(i % 7)}}}}},
                         {"spec", {{"nodeName", "node-" + std::to_string(i % nodes)},
                                   {"containers", {{{"name", "c"}, {"image", "x"},
                                                    {"resources", {{"requests", {{"cpu", "100m"}}}}}}}}}},
                         {"status", {{"phase", "Running"}}}}.dump();
    out << "]}";
  }
  auto start = std::chrono::steady_clock::now();
  KubeLite api({.state = dir.file("state.json"), .start_timeout = milliseconds(60000)});
  ASSERT_EQ(api.error(), "");
  auto loaded = std::chrono::steady_clock::now();
  auto list = api.client().list(res::pods(), "", kube::ListOptions{"", "", 500});
  ASSERT_TRUE(list) << list.message();
  auto listed = std::chrono::steady_clock::now();
  EXPECT_EQ(list->items.size(), static_cast<size_t>(pods));
  auto on_node = api.client().list(res::pods(), "", kube::ListOptions{"", "spec.nodeName=node-7"});
  ASSERT_TRUE(on_node);
  EXPECT_EQ(on_node->items.size(), static_cast<size_t>(pods / nodes));
  auto ms = [](auto d) { return std::chrono::duration_cast<milliseconds>(d).count(); };
  std::printf("kube-lite: %d nodes + %d pods loaded in %lld ms, listed in pages of 500 in %lld ms\n", nodes, pods,
              static_cast<long long>(ms(loaded - start)), static_cast<long long>(ms(listed - loaded)));
}

}  // namespace
}  // namespace weft::kube_lite
