// `weft-descheduler run` (GangDefragment) killed with SIGKILL right after its k-th API
// write — the rooms journal, a reservation on a gang's PodGroup, one of the evictions, the
// journal cleared, the state saved — then started once more. Two gangs wait for room: one
// cycle writes the journal, two reservations, twelve evictions, clears the journal (and
// with --once saves the state). Afterwards no pod was evicted twice, no budget is broken,
// no node is over capacity, every reservation left frees room for its whole gang, and both
// gangs hold one (the interrupted plan was finished or made again, not dropped). Both
// modes: `--once`, and `--interval` (a cycle). Every write of an undisturbed run is a
// crash point; the short form runs a few of them (tests/crash/harness.h).
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <regex>

#include "kube/objects.h"
#include "kube/reservation.h"
#include "tests/crash/harness.h"
#include "tests/crash/invariants.h"
#include "tests/defragment/fixtures.h"
#include "tests/support/kube_lite.h"
#include "tests/support/process.h"

namespace weft::testing::crash {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// GangDefragment alone, with the default evictor: the fillers (priority 0) make room for
// the gangs (priority 1000).
const char* kPolicy = R"(apiVersion: descheduler/v1alpha2
kind: DeschedulerPolicy
profiles:
  - name: crash
    pluginConfig:
      - {name: GangDefragment, args: {reservationTTL: 10m}}
    plugins:
      balance: {enabled: [GangDefragment]}
)";

enum class Mode { Once, Interval };
void PrintTo(Mode m, std::ostream* os) { *os << (m == Mode::Once ? "--once" : "--interval"); }

std::string descheduler_binary() { return daemon_binary("WEFT_CRASH_DESCHEDULER", "descheduler/weft-descheduler"); }

std::vector<std::string> argv(Mode mode, const KubeLite& api, const TempDir& dir) {
  std::vector<std::string> a = {descheduler_binary(), "run", "--policy", dir.file("policy.yaml"), "--kubeconfig",
                                api.kubeconfig(), "--state-configmap", "default/ds-state"};
  if (mode == Mode::Once) a.push_back("--once");
  else a.insert(a.end(), {"--interval", "1s", "--no-leader-elect", "--metrics-listen", ""});
  return a;
}

// Runs the descheduler to the end of one cycle: --once to its exit, --interval until its
// first cycle is logged (then SIGTERM). "" or what went wrong.
std::string one_cycle(Mode mode, const KubeLite& api, const TempDir& dir) {
  if (mode == Mode::Once) {
    auto [code, out] = run_command(argv(mode, api, dir), seconds(60));
    return code == 0 ? "" : "run --once failed: " + out;
  }
  Process p({.argv = argv(mode, api, dir), .keep_stdin_open = false});
  if (!p.wait_for_line(std::regex(".*cycle: .*"), seconds(60))) return "no cycle logged: " + p.output();
  p.stop(seconds(10));
  return "";
}

int successful_writes(const KubeLite& api) {
  int n = 0;
  for (const auto& r : api.requests())
    if (r.value("verb", "") != "GET" && r.value("status", 0) / 100 == 2) ++n;
  return n;
}

std::string gangs_without_room(kube::Client& client) {
  std::string out;
  for (const auto& pg : ClusterView::read(client).podgroups) {
    const json annotations = pg["metadata"].value("annotations", json::object());
    if (!annotations.contains(kube::kReservationAnnotation)) out += "gang " + kube::key_of(pg) + " holds no room; ";
  }
  return out;
}

KubeLiteOptions api_options(const TempDir& dir, int kill_after) {
  KubeLiteOptions o{.state = dir.file("cluster.json")};
  if (kill_after > 0) o.extra_args = {"--kill-after-writes", std::to_string(kill_after), "--kill-pid-file", dir.file("pid")};
  return o;
}

// "" when the crash after write k and one more cycle leave the invariants holding.
std::string crash_and_rerun(Mode mode, int k, const TempDir& dir) {
  std::filesystem::remove(dir.file("pid"));
  KubeLite api(api_options(dir, k));
  if (!api.error().empty()) return "kube-lite: " + api.error();
  {
    Process first({.argv = argv(mode, api, dir), .keep_stdin_open = false});
    write_file(dir.file("pid"), std::to_string(first.pid()));
    auto code = first.wait(seconds(60));
    if (code != 128 + SIGKILL) return "not killed at write " + std::to_string(k) + ": " + first.output();
  }
  if (auto e = one_cycle(mode, api, dir); !e.empty()) return e;
  auto client = api.new_client();
  return all_invariants(ClusterView::read(*client), api.requests(), {}) + gangs_without_room(*client);
}

class DeschedulerCrash : public ::testing::TestWithParam<Mode> {};

TEST_P(DeschedulerCrash, KilledAfterTheKthWriteTheNextCycleNeitherEvictsTwiceNorLeavesAnEmptyReservation) {
  WEFT_SKIP_UNLESS(need_binaries(descheduler_binary()));
  const Mode mode = GetParam();
  TempDir dir("crash-desched");
  auto objects = defrag_test::fragmented_fabric();
  defrag_test::add_gang(objects, "train", 4, 8, 1);
  defrag_test::add_gang(objects, "tune", 4, 8, 1);
  write_file(dir.file("cluster.json"), json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", objects}}.dump());
  write_file(dir.file("policy.yaml"), kPolicy);
  int writes = 0;
  {
    KubeLite api(api_options(dir, 0));
    ASSERT_EQ(api.error(), "");
    ASSERT_EQ(one_cycle(mode, api, dir), "");
    auto client = api.new_client();
    ASSERT_EQ(gangs_without_room(*client), "") << "undisturbed, both gangs get room";
    writes = successful_writes(api);
  }
  ASSERT_GE(writes, 15) << "journal, 2 reservations, 12 evictions, journal cleared";
  // Between a reservation and the evictions always (write 2: the first reservation).
  for (int k : crash_points(1, writes, mode == Mode::Once ? 2 : 1, 2))
    EXPECT_EQ(crash_and_rerun(mode, k, dir), "") << "killed after write " << k << " of " << writes;
}

INSTANTIATE_TEST_SUITE_P(Modes, DeschedulerCrash, ::testing::Values(Mode::Once, Mode::Interval),
                         [](const auto& info) { return info.param == Mode::Once ? "Once" : "Interval"; });

}  // namespace
}  // namespace weft::testing::crash
