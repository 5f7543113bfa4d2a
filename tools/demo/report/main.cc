// weft-demo-report: the demo's checks and its summary, over `kubectl get -o json` dumps
// and the files the steps write. Each check prints what it saw and exits 1 naming every
// problem, so the demo can fail loudly at the step whose claim does not hold.
#include <cstdio>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "tools/demo/report/checks.h"
#include "tools/demo/report/cluster_view.h"
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

  CLI11_PARSE(app, argc, argv);

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
