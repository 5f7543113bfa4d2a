// volcano-scheduler.conf as a file: one YAML document only, and the top-level `metrics`
// key (Volcano's metrics source) refused rather than accepted and ignored.
#include <gtest/gtest.h>

#include "scheduler/core/config.h"

namespace weft::scheduler {
namespace {

const std::string kBase = "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n";

std::string error_of(const std::string& text) {
  auto c = parse_config(text, "sched.conf");
  return c ? "" : c.message();
}

TEST(ConfigFile, ASecondYamlDocumentIsRefusedNamingFileAndDocument) {
  const std::string e = error_of(kBase + "---\nactions: \"allocate\"\n");
  EXPECT_NE(e.find("sched.conf: document 2 (line 5)"), std::string::npos) << e;
  // Separators around one document are fine.
  EXPECT_EQ(error_of("---\n" + kBase + "---\n"), "");
  EXPECT_EQ(error_of("# comment\n---\n" + kBase + "...\n"), "");
}

TEST(ConfigFile, MetricsEmptyOrAbsentIsAccepted) {
  EXPECT_EQ(error_of(kBase), "");
  EXPECT_EQ(error_of(kBase + "metrics: {}\n"), "");
  EXPECT_EQ(error_of(kBase + "metrics:\n"), "");
}

TEST(ConfigFile, MetricsOfAnUnknownTypeIsRefused) {
  const std::string e = error_of(kBase + "metrics: {type: nonsense}\n");
  EXPECT_NE(e.find("metrics.type 'nonsense' is unknown"), std::string::npos) << e;
  EXPECT_NE(e.find("prometheus_adaptor"), std::string::npos) << e;
}

TEST(ConfigFile, MetricsSourcesVolcanoKnowsAreRefusedWithWhereWeftReadsUsage) {
  for (const char* type : {"prometheus", "prometheus_adaptor", "elasticsearch"}) {
    const std::string e =
        error_of(kBase + "metrics:\n  type: " + type + "\n  address: http://prometheus:9090\n  interval: 30s\n");
    EXPECT_NE(e.find(std::string("metrics.type '") + type + "'"), std::string::npos) << e;
    EXPECT_NE(e.find("weft.dev/load"), std::string::npos) << e;
  }
}

TEST(ConfigFile, MetricsKeysWithoutATypeOrNotStringsAreRefused) {
  EXPECT_NE(error_of(kBase + "metrics: {address: 'http://p:9090'}\n").find("metrics.address"), std::string::npos);
  EXPECT_NE(error_of(kBase + "metrics: {type: {name: prometheus}}\n").find("metrics.type: not a string"),
            std::string::npos);
  EXPECT_NE(error_of(kBase + "metrics: [prometheus]\n").find("metrics: not a map"), std::string::npos);
}

}  // namespace
}  // namespace weft::scheduler
