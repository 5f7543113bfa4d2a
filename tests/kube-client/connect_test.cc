// connect(): the config every binary resolves from its --kubeconfig flag, then
// $KUBECONFIG, then the in-cluster service account, then ~/.kube/config.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "kube/client/client.h"
#include "tests/support/process.h"

namespace weft::kube {
namespace {

using weft::testing::TempDir;
using weft::testing::write_file;

std::string config_for(const std::string& server) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
         "clusters:\n- name: k\n  cluster:\n    server: " + server + "\n"
         "contexts:\n- name: c\n  context: {cluster: k, user: u}\n"
         "users:\n- name: u\n  user: {token: t}\n";
}

// Each test sets the variables connect() reads; nothing leaks from the runner's environment.
class ConnectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("KUBECONFIG");
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    setenv("HOME", dir_.path().c_str(), 1);
  }
  TempDir dir_{"connect-test"};
};

TEST_F(ConnectTest, FlagWinsOverEnvironmentAndHome) {
  write_file(dir_.file("flag.yaml"), config_for("http://127.0.0.1:1001"));
  write_file(dir_.file("env.yaml"), config_for("http://127.0.0.1:1002"));
  std::filesystem::create_directories(dir_.file(".kube"));
  write_file(dir_.file(".kube/config"), config_for("http://127.0.0.1:1003"));
  setenv("KUBECONFIG", dir_.file("env.yaml").c_str(), 1);
  auto c = connect(dir_.file("flag.yaml"));
  ASSERT_TRUE(c) << c.message();
  EXPECT_EQ((*c)->address(), "http://127.0.0.1:1001");
}

TEST_F(ConnectTest, KubeconfigVariableThenHome) {
  write_file(dir_.file("env.yaml"), config_for("http://127.0.0.1:1002"));
  std::filesystem::create_directories(dir_.file(".kube"));
  write_file(dir_.file(".kube/config"), config_for("http://127.0.0.1:1003"));
  setenv("KUBECONFIG", (dir_.file("missing.yaml") + ":" + dir_.file("env.yaml")).c_str(), 1);
  auto from_env = connect("");
  ASSERT_TRUE(from_env) << from_env.message();
  EXPECT_EQ((*from_env)->address(), "http://127.0.0.1:1002");
  unsetenv("KUBECONFIG");
  auto from_home = connect("");
  ASSERT_TRUE(from_home) << from_home.message();
  EXPECT_EQ((*from_home)->address(), "http://127.0.0.1:1003");
}

TEST_F(ConnectTest, ErrorsNameTheFileOrSayWhatIsMissing) {
  auto none = connect("");
  ASSERT_FALSE(none);
  EXPECT_NE(none.message().find("no Kubernetes API configuration"), std::string::npos) << none.message();
  write_file(dir_.file("bad.yaml"), "apiVersion: v1\nclusters: [\n");
  auto bad = connect(dir_.file("bad.yaml"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.message().find(dir_.file("bad.yaml")), std::string::npos) << bad.message();
  EXPECT_EQ(bad.message().find('\n'), std::string::npos) << bad.message();
  auto missing = connect(dir_.file("nope.yaml"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.message().find(dir_.file("nope.yaml")), std::string::npos) << missing.message();
}

}  // namespace
}  // namespace weft::kube
