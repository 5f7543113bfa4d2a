// weft-demo-report: the demo's checks and its summary, over `kubectl get -o json` dumps
// and the files the steps write. Each check prints what it saw and exits 1 naming every
// problem, so the demo can fail loudly at the step whose claim does not hold.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>

#include "tools/demo/report/checks.h"
#include "tools/demo/report/cluster_view.h"
#include "tools/demo/report/defragment_check.h"
#include "tools/demo/report/fragment.h"
#include "tools/demo/report/group_checks.h"
#include "tools/demo/report/summary.h"

namespace {

using weft::demo::ClusterView;
using weft::demo::Problems;

struct Dumps {
  std::string nodes, pods, podgroups;
};

weft::Result<ClusterView> load(const Dumps& d) {
  auto nodes = weft::demo::read_json_file(d.nodes);
  if (!nodes) return nodes.error();
  nlohmann::json pods = {{"items", nlohmann::json::array()}};
  nlohmann::json groups = {{"items", nlohmann::json::array()}};
  if (!d.pods.empty()) {
    auto p = weft::demo::read_json_file(d.pods);
    if (!p) return p.error();
    pods = *p;
  }
  if (!d.podgroups.empty()) {
    auto g = weft::demo::read_json_file(d.podgroups);
    if (!g) return g.error();
    groups = *g;
  }
  return weft::demo::read_cluster(*nodes, pods, groups);
}

int report(const Problems& problems, const nlohmann::json& seen, const std::string& out) {
  if (!out.empty()) std::ofstream(out) << seen.dump(2) << "\n";
  for (const auto& p : problems) std::cerr << "  problem: " << p << "\n";
  return problems.empty() ? 0 : 1;
}

void add_dumps(CLI::App* cmd, Dumps& d, bool pods) {
  cmd->add_option("--nodes", d.nodes, "kubectl get nodes -o json")->required();
  if (pods) {
    cmd->add_option("--pods", d.pods, "kubectl get pods -A -o json")->required();
    cmd->add_option("--podgroups", d.podgroups, "kubectl get podgroups -A -o json");
  }
}

int fail(const std::string& what) {
  std::cerr << "weft-demo-report: " << what << "\n";
  return 2;
}

// --cpu and --memory quantities as a pod shape.
struct ShapeText {
  std::string cpu, memory;
};
void add_shape(CLI::App* cmd, ShapeText& t, const std::string& prefix, const std::string& whose) {
  cmd->add_option("--" + prefix + "cpu", t.cpu, "CPU request of " + whose)->required();
  cmd->add_option("--" + prefix + "memory", t.memory, "Memory request of " + whose)->required();
}
weft::Result<weft::demo::PodShape> shape_of(const ShapeText& t) {
  auto list = weft::kube::parse_resource_list(nlohmann::json{{"cpu", t.cpu}, {"memory", t.memory}});
  if (!list) return list.error();
  return weft::demo::PodShape{*list};
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// check-groups: both claims over the same dumps, every problem named.
int check_groups(const Dumps& d, const std::string& native_groups, const std::string& out) {
  auto nodes = weft::demo::read_json_file(d.nodes);
  auto pods = weft::demo::read_json_file(d.pods);
  auto native = weft::demo::read_json_file(native_groups);
  auto volcano = weft::demo::read_json_file(d.podgroups);
  for (const auto* r : {&nodes, &pods, &native, &volcano})
    if (!*r) return fail(r->message());
  nlohmann::json seen = nlohmann::json::object();
  Problems problems = weft::demo::check_native_groups(*nodes, *pods, *native, seen["native"]);
  for (auto& p : weft::demo::check_sub_groups(*nodes, *pods, *volcano, seen["subGroups"])) problems.push_back(p);
  return report(problems, seen, out);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"weft-demo-report: checks and summary of the weft demo"};
  app.require_subcommand(1);
  Dumps d, before, after;
  std::string out, state, file, label = "node";
  int fabrics = 2;

  auto* labels = app.add_subcommand("check-labels", "Every agent node carries fabric/leaf/spine labels");
  add_dumps(labels, d, false);
  labels->add_option("--fabrics", fabrics, "Distinct fabrics expected")->capture_default_str();
  labels->add_option("--out", out, "Write what was seen here (JSON)");

  auto* placement = app.add_subcommand("check-placement", "Jobs bound, Running, inside their fabric domains");
  add_dumps(placement, d, true);
  placement->add_option("--out", out, "Write the placements here (JSON)");

  auto* gangs = app.add_subcommand("check-gangs", "Every gang keeps minMember pods bound");
  add_dumps(gangs, d, true);

  auto* compare = app.add_subcommand("compare-labels", "No node's fabric/leaf/spine label changed");
  compare->add_option("--before", before.nodes, "nodes JSON before")->required();
  compare->add_option("--after", after.nodes, "nodes JSON after")->required();

  auto* hot = app.add_subcommand("pick-hot", "The node to make hot, with what it holds (JSON)");
  add_dumps(hot, d, true);

  auto* prom = app.add_subcommand("prom-vector", "A Prometheus instant-query answer as {label value: number}");
  prom->add_option("file", file, "The /api/v1/query response")->required();
  prom->add_option("--label", label, "Label naming each series")->capture_default_str();

  auto* summary = app.add_subcommand("summary", "summary.json, topology.dot and the table, from the state dir");
  summary->add_option("--state", state, "State directory the steps wrote")->required();
  summary->add_option("--out", out, "Output directory")->required();

  ShapeText gang_shape, filler_shape;
  int gang_pods = 0, max_slots = 0;
  auto* fragment = app.add_subcommand("plan-fragment", "Fillers per node so that no leaf has room for the gang (JSON)");
  add_dumps(fragment, d, true);
  add_shape(fragment, gang_shape, "gang-", "each gang pod");
  add_shape(fragment, filler_shape, "filler-", "each filler pod");
  fragment->add_option("--max-slots", max_slots, "Gang pods a leaf may still hold afterwards")->required();

  auto* fragmented = app.add_subcommand("check-fragmented", "No leaf has room for the whole gang, some have a part");
  add_dumps(fragmented, d, true);
  add_shape(fragmented, gang_shape, "gang-", "each gang pod");
  fragmented->add_option("--gang-pods", gang_pods, "Pods of the gang")->required();
  fragmented->add_option("--out", out, "Write the room per leaf here (JSON)");

  Dumps defrag_before;
  std::string gang, plan_file, podgroups_file, api_log;
  auto* defrag = app.add_subcommand("check-defragment", "Reservation, evictions and the gang bound inside the room");
  add_dumps(defrag, d, true);
  defrag->add_option("--pods-before", defrag_before.pods, "Pods before the descheduler ran")->required();
  defrag->add_option("--gang", gang, "The pending gang's PodGroup name (namespace ml)")->required();
  defrag->add_option("--plan", plan_file, "weft-descheduler run --once --output json")->required();
  defrag->add_option("--podgroups-after-plan", podgroups_file, "PodGroups right after the descheduler")->required();
  defrag->add_option("--api-log", api_log, "kube-lite's request log")->required();
  defrag->add_option("--out", out, "Write what was seen here (JSON)");

  std::string native_groups;
  auto* groups = app.add_subcommand("check-groups",
                                    "Kubernetes PodGroups in one domain of their topology key and Scheduled; "
                                    "Volcano sub-groups each in one domain of their tier");
  add_dumps(groups, d, true);
  groups->add_option("--native-podgroups", native_groups, "kubectl get podgroups.scheduling.k8s.io -A -o json")
      ->required();
  groups->add_option("--out", out, "Write what was seen here (JSON)");

  CLI11_PARSE(app, argc, argv);

  if (*groups) return check_groups(d, native_groups, out);

  if (*fragment || *fragmented) {
    auto v = load(d);
    if (!v) return fail(v.message());
    auto g = shape_of(gang_shape);
    if (!g) return fail("gang shape: " + g.message());
    nlohmann::json seen;
    if (*fragmented) return report(weft::demo::check_fragmented(*v, *g, gang_pods, seen), seen, out);
    auto f = shape_of(filler_shape);
    if (!f) return fail("filler shape: " + f.message());
    Problems problems;
    seen = weft::demo::plan_fragmentation(*v, *g, max_slots, *f, problems);
    std::cout << seen.dump() << "\n";
    return report(problems, nullptr, "");
  }
  if (*defrag) {
    auto after_view = load(d);
    if (!after_view) return fail(after_view.message());
    defrag_before.nodes = d.nodes;
    defrag_before.podgroups = d.podgroups;
    auto before_view = load(defrag_before);
    if (!before_view) return fail(before_view.message());
    auto plan = weft::demo::read_json_file(plan_file);
    if (!plan) return fail(plan.message());
    auto groups = weft::demo::read_json_file(podgroups_file);
    if (!groups) return fail(groups.message());
    weft::demo::DefragmentEvidence evidence{gang, *plan, *groups, read_text(api_log), &*before_view, &*after_view};
    nlohmann::json seen;
    return report(weft::demo::check_defragment(evidence, seen), seen, out);
  }

  if (*labels) {
    auto v = load(d);
    if (!v) return fail(v.message());
    nlohmann::json seen;
    return report(weft::demo::check_labels(*v, fabrics, seen), seen, out);
  }
  if (*placement) {
    auto v = load(d);
    if (!v) return fail(v.message());
    nlohmann::json seen;
    return report(weft::demo::check_placement(*v, seen), seen, out);
  }
  if (*gangs) {
    auto v = load(d);
    if (!v) return fail(v.message());
    return report(weft::demo::check_gangs_whole(*v), nullptr, "");
  }
  if (*compare) {
    auto b = load(before);
    if (!b) return fail(b.message());
    auto a = load(after);
    if (!a) return fail(a.message());
    return report(weft::demo::compare_labels(*b, *a), nullptr, "");
  }
  if (*hot) {
    auto v = load(d);
    if (!v) return fail(v.message());
    nlohmann::json why;
    std::string node = weft::demo::pick_hot_node(*v, why);
    if (node.empty()) return fail("no node holds a demo pod");
    std::cout << why.dump() << "\n";
    return 0;
  }
  if (*prom) {
    auto j = weft::demo::read_json_file(file);
    if (!j) return fail(j.message());
    if ((*j).value("status", "") != "success") return fail(file + ": query status " + (*j).value("status", "?"));
    nlohmann::json values = nlohmann::json::object();
    for (const auto& r : (*j)["data"]["result"]) {
      const std::string key = r["metric"].value(label, "");
      if (key.empty() || !r.contains("value")) continue;
      values[key] = std::stod(r["value"][1].get<std::string>());
    }
    std::cout << values.dump() << "\n";
    return 0;
  }
  auto s = weft::demo::build_summary(state);
  if (!s) return fail(s.message());
  std::ofstream(out + "/summary.json") << s->dump(2) << "\n";
  std::ofstream(out + "/topology.dot") << weft::demo::topology_dot(*s);
  std::cout << weft::demo::summary_table(*s);
  return 0;
}
