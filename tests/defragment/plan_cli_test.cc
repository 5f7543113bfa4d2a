// Offline, as an operator would: `weft-descheduler plan` on a scenario file shows the
// defragmentation moves (reason naming gang and domain) and the reservation; the scenario
// with the victims as pending copies (no nodeName) and the reservation written, run through
// `weft-scheduler simulate`, places the gang inside the domain and every victim elsewhere.
#include <gtest/gtest.h>

#include <algorithm>

#include "kube/objects.h"
#include "tests/defragment/fixtures.h"
#include "tests/support/process.h"

namespace weft::defrag_test {
namespace {

using testing::binary;
using testing::run_command;
using testing::TempDir;
using testing::write_file;

const char* kPolicy = R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: defragment
    pluginConfig:
      - name: DefaultEvictor
        args: {priorityThreshold: {value: 10000}}
      - name: GangDefragment
        args: {evictableNamespaces: {exclude: [kube-system]}, reservationTTL: 5m}
    plugins:
      balance:
        enabled: [GangDefragment]
)";

json list_of(const std::vector<json>& objects) { return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}}; }

// The last line of the output that is a JSON object (logs go to stderr, merged here).
json last_json(const std::string& out) {
  json found;
  size_t at = 0;
  while (at < out.size()) {
    size_t end = out.find('\n', at);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(at, end - at);
    if (!line.empty() && line[0] == '{') found = json::parse(line, nullptr, false);
    at = end + 1;
  }
  return found;
}

TEST(DefragmentCli, PlanThenSimulatePlacesTheGangInTheFreedDomain) {
  TempDir dir("weft-defrag");
  auto objects = fragmented_fabric();
  add_gang(objects, "train", 4, 8, 1);
  write_file(dir.file("scenario.json"), list_of(objects).dump());
  write_file(dir.file("policy.yaml"), kPolicy);

  auto [code, out] = run_command({binary("descheduler/weft-descheduler"), "plan", dir.file("scenario.json"), "--policy",
                                  dir.file("policy.yaml"), "--now", "2026-11-24T12:00:00Z"});
  ASSERT_EQ(code, 0) << out;
  json plan = last_json(out);
  ASSERT_TRUE(plan.is_object()) << out;
  ASSERT_EQ(plan["evictions"].size(), 4u) << plan.dump(2);
  std::vector<std::string> victims;
  for (const auto& e : plan["evictions"]) {
    EXPECT_EQ(e["reason"], "defragment: gang ml/train into leaf-a-l1");
    EXPECT_EQ(e["from"].get<std::string>().substr(0, 4), "a-l1");
    victims.push_back(e["pod"].get<std::string>());
  }
  ASSERT_EQ(plan["reservations"].size(), 1u);
  EXPECT_EQ(plan["reservations"][0]["podgroup"], "ml/train");
  std::string annotation = plan["reservations"][0]["annotation"];
  auto room = kube::parse_reservation(annotation, "plan");
  ASSERT_TRUE(room) << room.message();
  EXPECT_EQ(room->domain, "leaf-a-l1");
  EXPECT_EQ(kube::format_rfc3339(room->expires), "2026-11-24T12:05:00Z");

  // The victims' controllers re-create them (pending, no nodeName); the PodGroup carries
  // the reservation the descheduler wrote before evicting.
  std::vector<json> after;
  for (json o : objects) {
    std::string key = kube::namespace_of(o) + "/" + kube::name_of(o);
    if (kube::kind_of(o) == "Pod" && std::count(victims.begin(), victims.end(), key)) {
      o["spec"].erase("nodeName");
      o["status"] = {{"phase", "Pending"}};
    }
    if (kube::kind_of(o) == "PodGroup" && key == "ml/train")
      o["metadata"]["annotations"][kube::kReservationAnnotation] = annotation;
    after.push_back(std::move(o));
  }
  write_file(dir.file("after.json"), list_of(after).dump());
  auto [code2, out2] = run_command({binary("scheduler/weft-scheduler"), "simulate", dir.file("after.json"), "--now",
                                    "2026-11-24T12:00:30Z"});
  ASSERT_EQ(code2, 0) << out2;
  json sim = json::parse(out2.substr(out2.find('{')), nullptr, false);
  ASSERT_TRUE(sim.is_object()) << out2;
  std::map<std::string, std::string> node_of;
  for (const auto& p : sim["pods"]) node_of[p["pod"]] = p["node"].is_string() ? p["node"].get<std::string>() : "";
  for (int i = 0; i < 4; ++i) {
    std::string n = node_of["ml/train-" + std::to_string(i)];
    EXPECT_TRUE(std::count(room->nodes.begin(), room->nodes.end(), n)) << "train-" << i << " on '" << n << "'";
  }
  for (const auto& v : victims) {
    EXPECT_NE(node_of[v], "") << v << " left pending";
    EXPECT_FALSE(std::count(room->nodes.begin(), room->nodes.end(), node_of[v])) << v << " came back into the room";
  }
}

TEST(DefragmentCli, PolicyErrorsNameTheField) {
  TempDir dir("weft-defrag");
  write_file(dir.file("scenario.json"), list_of(fragmented_fabric()).dump());
  std::string bad = kPolicy;
  bad.replace(bad.find("reservationTTL"), 14, "reservationTtl");
  write_file(dir.file("policy.yaml"), bad);
  auto [code, out] = run_command({binary("descheduler/weft-descheduler"), "plan", dir.file("scenario.json"), "--policy",
                                  dir.file("policy.yaml")});
  EXPECT_NE(code, 0);
  EXPECT_NE(out.find("profiles[0].pluginConfig[1].args.reservationTtl: unknown field"), std::string::npos) << out;
}

}  // namespace
}  // namespace weft::defrag_test
