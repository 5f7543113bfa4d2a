#include "tools/demo/report/summary.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "tools/demo/report/checks.h"
#include "tools/demo/report/cluster_view.h"

namespace weft::demo {

namespace {

nlohmann::json file_or(const std::string& dir, const std::string& name, nlohmann::json fallback) {
  const std::string path = dir + "/" + name;
  if (!std::filesystem::exists(path)) return fallback;
  auto j = read_json_file(path);
  return j ? *j : fallback;
}

// The dump "tag" (nodes-<tag>.json, pods-<tag>.json) with the PodGroups of the same moment
// (podgroups-<tag>.json; PodGroups created later would count as gangs with no pod bound).
std::optional<ClusterView> view_of(const std::string& dir, const std::string& tag) {
  auto n = file_or(dir, "nodes-" + tag + ".json", nullptr);
  auto p = file_or(dir, "pods-" + tag + ".json", nullptr);
  if (n.is_null() || p.is_null()) return std::nullopt;
  auto groups = file_or(dir, "podgroups-" + tag + ".json", nullptr);
  if (groups.is_null()) groups = file_or(dir, "podgroups.json", nlohmann::json{{"items", nlohmann::json::array()}});
  auto v = read_cluster(n, p, groups);
  if (!v) return std::nullopt;
  return std::move(*v);
}

std::string short_guid(const std::string& guid) {
  // 0x0002c90000000101 -> ..0101: enough to tell switches apart in a picture.
  return guid.size() > 6 ? ".." + guid.substr(guid.size() - 4) : guid;
}

// Colours for jobs, readable with black text.
const char* const kPalette[] = {"#8dd3c7", "#bebada", "#80b1d3", "#fdb462", "#b3de69",
                                "#fccde5", "#ffffb3", "#bc80bd", "#ccebc5", "#d9d9d9"};

constexpr const char* kRailGangColour = "#c7e9c0";

std::string rails_text(const nlohmann::json& n) {
  return fmt::format("{}/{} rails active", n.value("active", 0), n.value("rails", 0));
}

// The rail unit of the rail step (rails.json): each node's rail group before and after one
// rail went down, and the gang on it.
std::string rail_unit_table(const nlohmann::json& r) {
  if (r.empty()) return "";
  std::string out = fmt::format("\nRail unit (fabric {}, {} rails per node; {} of {} downed)\n", r.value("fabric", ""),
                                r.value("rails", 0), r["downed"].value("device", ""), r["downed"].value("node", ""));
  for (const auto& n : r.value("nodes", nlohmann::json::array())) {
    std::string pods;
    for (const auto& p : r.value("pods", nlohmann::json::array()))
      if (p.value("node", "") == n.value("name", "")) pods += " " + p.value("pod", "");
    out += fmt::format("  {:<8} rail group {} -> {}  {:<18}{}\n", n.value("name", ""), n.value("leaf_before", ""),
                       n.value("leaf", ""), rails_text(n), pods);
  }
  return out;
}

std::string rail_unit_dot(const nlohmann::json& r, const std::string& gang_colour) {
  if (r.empty()) return "";
  std::ostringstream d;
  const std::string group = r["nodes"].empty() ? "" : r["nodes"][0].value("leaf", "");
  d << fmt::format("  subgraph cluster_rails {{\n    label=\"rail-optimized unit  fabric {}\\n{} rails per node; {} of {} "
                   "downed: rail group unchanged\"; style=rounded; color=\"#444444\";\n",
                   r.value("fabric", ""), r.value("rails", 0), r["downed"].value("device", ""),
                   r["downed"].value("node", ""));
  d << fmt::format("    \"rg{}\" [label=\"rail group {}\\n({} rail leaves)\", shape=box, fillcolor=\"#f6f6f6\"];\n", group,
                   short_guid(group), r.value("rails", 0));
  for (const auto& n : r.value("nodes", nlohmann::json::array())) {
    const std::string name = n.value("name", "");
    std::string label = name + "\\n" + rails_text(n);
    bool busy = false;
    for (const auto& p : r.value("pods", nlohmann::json::array()))
      if (p.value("node", "") == name) label += "\\n" + p.value("pod", ""), busy = true;
    const bool degraded = n.value("active", 0) < n.value("rails", 0);
    d << fmt::format("    \"n{}\" [label=\"{}{}\", shape=box, fillcolor=\"{}\"{}];\n", name, degraded ? "DEGRADED " : "",
                     label, busy ? gang_colour : "white",
                     degraded ? ", color=\"#ff7f0e\", penwidth=4, fontcolor=\"#b35900\", style=\"filled,dashed\"" : "");
    d << fmt::format("    \"rg{}\" -> \"n{}\";\n", n.value("leaf", ""), name);
  }
  d << "  }\n";
  return d.str();
}

}  // namespace

Result<nlohmann::json> build_summary(const std::string& dir) {
  nlohmann::json s;
  s["fabrics"] = file_or(dir, "fabrics.json", nlohmann::json::array());
  s["steps"] = file_or(dir, "steps.json", nlohmann::json::array());
  s["failover"] = file_or(dir, "failover.json", nlohmann::json::object());
  s["hot_node"] = file_or(dir, "hot.json", nlohmann::json::object());
  const auto plan = file_or(dir, "plan.json", nlohmann::json::object());
  s["evictions"] = plan.value("evictions", nlohmann::json::array());
  s["skipped"] = plan.value("skipped", nlohmann::json::array());
  const auto load_before = file_or(dir, "load-before.json", nlohmann::json::object());
  const auto load_after = file_or(dir, "load-after.json", nlohmann::json::object());

  s["spread"] = file_or(dir, "spread.json", nlohmann::json::object());
  s["rails"] = file_or(dir, "rails.json", nlohmann::json::object());
  s["defragment"] = file_or(dir, "defragment.json", nlohmann::json::object());
  if (!s["defragment"].empty()) {
    s["defragment"]["leaves_before"] = file_or(dir, "leaf-room-before.json", nlohmann::json::array());
    s["defragment"]["fillers"] = file_or(dir, "fragment-plan.json", nlohmann::json::object())
                                     .value("fillers", nlohmann::json::object());
  }

  auto placed = view_of(dir, "placed");
  auto after = view_of(dir, "after");
  auto final_view = view_of(dir, "defragmented");
  if (!placed) return make_error(dir + ": nodes-placed.json/pods-placed.json missing or unreadable");

  // What each moved pod asked for, beside the usage the descheduler moved.
  for (auto& e : s["evictions"])
    for (const auto& p : placed->pods)
      if (p.key == e.value("pod", ""))
        e["cpu_request"] = weft::kube::to_base_units(p.requests.count("cpu") ? p.requests.at("cpu") : 0);

  // The plan names skipped pods only; add where each one runs.
  for (auto& k : s["skipped"])
    for (const auto& p : placed->pods)
      if (p.key == k.value("pod", "") && !k.contains("node")) k["node"] = p.node;

  // Nodes with their domains and load.
  s["nodes"] = nlohmann::json::array();
  for (const auto& [name, n] : placed->nodes) {
    nlohmann::json node = {{"name", name}, {"fabric", n.fabric}, {"leaf", n.leaf}, {"spine", n.spine},
                           {"control_plane", n.control_plane}};
    node["load_before"] = load_before.contains(name) ? load_before[name] : nlohmann::json(nullptr);
    node["load_after"] = load_after.contains(name) ? load_after[name] : nlohmann::json(nullptr);
    node["hot"] = false;
    for (const auto& h : s["hot_node"].value("nodes", nlohmann::json::array()))
      if (h.value("node", "") == name) node["hot"] = true;
    node["pods_before"] = nlohmann::json::array();
    node["pods_after"] = nlohmann::json::array();
    node["pods_final"] = nlohmann::json::array();
    s["nodes"].push_back(node);
  }
  auto node_index = [&](const std::string& name) -> nlohmann::json* {
    for (auto& n : s["nodes"])
      if (n["name"] == name) return &n;
    return nullptr;
  };
  for (const auto& p : placed->pods)
    if (auto* n = node_index(p.node)) n->at("pods_before").push_back({{"pod", p.name}, {"job", p.job}});
  if (after) {
    for (const auto& p : after->pods)
      if (auto* n = node_index(p.node)) n->at("pods_after").push_back({{"pod", p.name}, {"job", p.job}});
  }
  s["has_final"] = final_view.has_value();
  if (final_view) {
    for (const auto& p : final_view->pods)
      if (auto* n = node_index(p.node)) n->at("pods_final").push_back({{"pod", p.name}, {"job", p.job}});
  }

  // Domains: nodes per spine and leaf of each fabric.
  nlohmann::json domains = nlohmann::json::object();
  for (const auto& [name, n] : placed->nodes) {
    if (n.control_plane || n.fabric.empty()) continue;
    auto& count_spine = domains[n.fabric]["spines"][n.spine];
    count_spine = count_spine.is_number() ? count_spine.get<int>() + 1 : 1;
    auto& count_leaf = domains[n.fabric]["leaves"][n.leaf];
    count_leaf = count_leaf.is_number() ? count_leaf.get<int>() + 1 : 1;
    domains[n.fabric]["leaf_spine"][n.leaf] = n.spine;
  }
  s["domains"] = domains;

  // Jobs and where they run, before and after the rebalancing.
  nlohmann::json jobs_before, jobs_after;
  auto problems = check_placement(*placed, jobs_before);
  s["jobs"] = nlohmann::json::array();
  for (auto& [name, j] : jobs_before.items()) {
    nlohmann::json job = j;
    job["name"] = name;
    job["placement_ok"] = true;
    for (const auto& p : problems)
      if (p.rfind("job " + name + ":", 0) == 0) job["placement_ok"] = false;
    s["jobs"].push_back(job);
  }
  s["has_after"] = after.has_value();
  if (after) {
    (void)check_placement(*after, jobs_after);
    for (auto& job : s["jobs"]) {
      const std::string name = job["name"];
      if (jobs_after.contains(name)) job["pods_after"] = jobs_after[name]["pods"];
    }
    auto broken = check_gangs_whole(*after);
    s["gangs_whole"] = broken.empty();
    s["gang_problems"] = broken;
    // Pods the rebalancer moved: gone from their node before, bound elsewhere after.
    s["replaced"] = nlohmann::json::array();
    for (const auto& e : s["evictions"]) {
      const std::string pod = e.value("pod", "");
      for (const auto& p : after->pods)
        if (p.key == pod) s["replaced"].push_back({{"pod", pod}, {"from", e.value("from", "")}, {"to", p.node},
                                                   {"phase", p.phase}});
    }
  }
  s["jobs_added"] = nlohmann::json::array();   // jobs of the defragment step
  if (final_view) {
    std::set<std::string> known;
    for (const auto& j : s["jobs"]) known.insert(j.value("name", ""));
    for (const auto& [name, job] : final_view->jobs)
      if (!known.count(name)) s["jobs_added"].push_back({{"name", name}, {"kind", job.kind}, {"minMember", job.min_member}});
  }
  return s;
}

std::string summary_table(const nlohmann::json& s) {
  std::ostringstream out;
  auto num = [](const nlohmann::json& v) { return v.is_number() ? fmt::format("{:5.1f}%", 100 * v.get<double>()) : std::string("   - "); };
  out << "Fabrics and subnet managers\n";
  for (const auto& f : s["fabrics"]) {
    out << fmt::format("  {:<3} {:<20} {:<28} {:>3} hosts  fabric id {}\n", f.value("name", ""),
                       f.value("shape", ""), f.value("net", ""), f.value("hosts", 0), f.value("id", "?"));
    for (const auto& sm : f.value("sms", nlohmann::json::array()))
      out << fmt::format("        SM on {:<10} guid {} priority {:>2}  {}\n", sm.value("host", ""),
                         sm.value("guid", ""), sm.value("priority", 0), sm.value("role", ""));
  }
  const auto& fo = s["failover"];
  if (!fo.empty())
    out << fmt::format("  failover on {}: master {} -> {} in {:.1f} s; fabric labels unchanged: {}\n",
                       fo.value("fabric", ""), fo.value("old_master", ""), fo.value("new_master", ""),
                       fo.value("seconds", 0.0), fo.value("labels_unchanged", false) ? "yes" : "NO");
  out << "\nNodes per domain (from the agents' labels)\n";
  for (const auto& [fabric, d] : s["domains"].items()) {
    out << "  fabric " << fabric << "\n";
    for (const auto& [spine, count] : d["spines"].items()) {
      out << fmt::format("    spine {}: {} nodes; leaves", spine, count.get<int>());
      for (const auto& [leaf, c] : d["leaves"].items())
        if (d["leaf_spine"][leaf] == spine) out << fmt::format(" {}({})", leaf, c.get<int>());
      out << "\n";
    }
  }
  out << "\nPlacements\n";
  for (const auto& j : s["jobs"]) {
    std::map<std::string, int> per_leaf;
    for (const auto& p : j["pods"]) per_leaf[p.value("leaf", "")]++;
    std::string where;
    for (const auto& [leaf, c] : per_leaf) where += fmt::format(" {}x leaf {}", c, leaf);
    out << fmt::format("  {:<10} {:<15} min {:>2}  {:>2} pods  fabric {}  {}\n", j.value("name", ""),
                       j.value("kind", ""), j.value("minMember", 0), j["pods"].size(),
                       j["fabrics"].size() == 1 ? j["fabrics"][0].get<std::string>() : j["fabrics"].dump(),
                       where);
  }
  const auto hot_nodes = s["hot_node"].value("nodes", nlohmann::json::array());
  std::string hot_names;
  for (const auto& h : hot_nodes) hot_names += (hot_names.empty() ? "" : ", ") + h.value("node", "");
  out << "\nRebalancing (hot node" << (hot_nodes.size() > 1 ? "s " : " ") << (hot_names.empty() ? "-" : hot_names)
      << ")\n";
  for (const auto& e : s["evictions"])
    out << fmt::format("  evicted {:<20} from {:<8} (planned to {}): {}\n", e.value("pod", ""), e.value("from", ""),
                       e.value("to", ""), e.value("reason", ""));
  for (const auto& r : s.value("replaced", nlohmann::json::array()))
    out << fmt::format("  re-placed {:<18} on {} ({})\n", r.value("pod", ""), r.value("to", ""), r.value("phase", ""));
  for (const auto& k : s["skipped"])
    out << fmt::format("  kept    {:<20} on {:<8}: {}\n", k.value("pod", ""), k.value("node", ""), k.value("reason", ""));
  for (const auto& e : s["evictions"])
    if (e.contains("cpu_request"))
      out << fmt::format("  moved   {:<20} measured {:.2f} cores vs request {:.0f} (sized by {})\n", e.value("pod", ""),
                         e.value("cpu", 0.0), e.value("cpu_request", 0.0), e.value("sized_by", "requests"));
  const auto& spread = s.value("spread", nlohmann::json::object());
  if (!spread.empty())
    out << fmt::format("  the {} moved pods went to {} nodes ({} low nodes could take them)\n", spread.value("moved", 0),
                       spread.value("destinations", 0), spread.value("low_nodes", 0));
  const auto& dg = s.value("defragment", nlohmann::json::object());
  if (!dg.empty()) {
    out << "\nDefragmentation (GangDefragment for " << dg.value("gang", "") << ")\n";
    for (const auto& l : dg.value("leaves_before", nlohmann::json::array()))
      out << fmt::format("  before: leaf {} (fabric {}) room for {} gang pods, {:.0f} cores free\n", l.value("leaf", ""),
                         l.value("fabric", ""), l.value("slots", 0), l.value("free_cpu", 0.0));
    std::string reserved;
    for (const auto& n : dg.value("reserved_nodes", nlohmann::json::array()))
      reserved += (reserved.empty() ? "" : " ") + n.get<std::string>();
    out << fmt::format("  reserved-room on the PodGroup: {} (nodes {}) until {}\n", dg.value("domain", ""), reserved,
                       dg.value("expires", ""));
    for (const auto& e : dg.value("evictions", nlohmann::json::array()))
      out << fmt::format("  evicted {:<18} from {:<8} -> re-placed on {:<8} (Eviction API: {})\n", e.value("pod", ""),
                         e.value("from", ""), e.value("to", ""), e.value("eviction_api", false) ? "yes" : "NO");
    std::string gang_nodes;
    for (const auto& p : dg.value("gang_pods", nlohmann::json::array()))
      gang_nodes += (gang_nodes.empty() ? "" : " ") + p.value("node", "");
    out << fmt::format("  {} bound in leaf {}: {}\n", dg.value("gang", ""), dg.value("leaf", ""), gang_nodes);
  }
  out << rail_unit_table(s.value("rails", nlohmann::json::object()));
  out << "\nCPU load per node (agents via Prometheus): before -> after rebalancing\n";
  int col = 0;
  for (const auto& n : s["nodes"]) {
    if (n.value("control_plane", false)) continue;
    out << fmt::format("  {:<8}{} {} -> {}", n.value("name", ""), n.value("hot", false) ? "*" : " ",
                       num(n["load_before"]), num(n["load_after"]));
    out << (++col % 3 == 0 ? "\n" : "   ");
  }
  if (col % 3) out << "\n";
  out << "  (* a node made hot)\n";
  return out.str();
}

std::string topology_dot(const nlohmann::json& s) {
  std::map<std::string, std::string> colour;
  size_t next = 0;
  for (const auto& j : s["jobs"]) colour[j.value("name", "")] = kPalette[next++ % std::size(kPalette)];
  for (const auto& j : s.value("jobs_added", nlohmann::json::array()))
    colour[j.value("name", "")] = kPalette[next++ % std::size(kPalette)];
  const auto defrag = s.value("defragment", nlohmann::json::object());
  const std::string reserved_leaf = defrag.value("leaf", "");
  std::set<std::string> hot;
  for (const auto& n : s["nodes"])
    if (n.value("hot", false)) hot.insert(n.value("name", ""));
  std::set<std::string> skipped_nodes;
  for (const auto& k : s["skipped"]) skipped_nodes.insert(k.value("node", ""));

  std::ostringstream d;
  d << "digraph weft {\n  rankdir=TB; newrank=true; compound=true;\n"
    << "  graph [fontname=\"Helvetica\", fontsize=12, labelloc=t, label=\"weft demo: fabrics from the agents' labels, "
    << (s.value("has_final", false) ? "pods at the end (red: moved by the rebalancing; blue: by GangDefragment)"
                                    : "pods after rebalancing")
    << "\"];\n"
    << "  node [fontname=\"Helvetica\", fontsize=10, style=filled, fillcolor=white];\n  edge [arrowhead=none, color=\"#888888\"];\n";
  std::map<std::string, nlohmann::json> fabric_info;
  for (const auto& f : s["fabrics"]) fabric_info[f.value("id", "")] = f;
  int fi = 0;
  for (const auto& [fabric, dom] : s["domains"].items()) {
    const auto info = fabric_info.count(fabric) ? fabric_info[fabric] : nlohmann::json::object();
    std::string title = fmt::format("fabric {} ({})  id {}", info.value("name", "?"), info.value("shape", ""), fabric);
    std::string sms;
    for (const auto& sm : info.value("sms", nlohmann::json::array()))
      sms += fmt::format("\\nSM {} {}", sm.value("host", ""), sm.value("role", ""));
    d << fmt::format("  subgraph cluster_f{} {{\n    label=\"{}{}\"; style=rounded; color=\"#444444\";\n", fi, title, sms);
    for (const auto& [spine, count] : dom["spines"].items())
      d << fmt::format("    \"s{}\" [label=\"spine {}\\n{} nodes\", shape=box3d, fillcolor=\"#eeeeee\"];\n", spine,
                       short_guid(spine), count.get<int>());
    for (const auto& [leaf, count] : dom["leaves"].items()) {
      if (leaf == reserved_leaf)
        d << fmt::format("    \"l{}\" [label=\"leaf {}\\nroom reserved for {}\", shape=box, fillcolor=\"#dbe9f6\", "
                         "color=\"#1f77b4\", penwidth=3];\n",
                         leaf, short_guid(leaf), defrag.value("gang", ""));
      else
        d << fmt::format("    \"l{}\" [label=\"leaf {}\", shape=box, fillcolor=\"#f6f6f6\"];\n", leaf, short_guid(leaf));
      d << fmt::format("    \"s{}\" -> \"l{}\";\n", dom["leaf_spine"][leaf].get<std::string>(), leaf);
    }
    for (const auto& n : s["nodes"]) {
      if (n.value("fabric", "") != fabric) continue;
      const std::string name = n.value("name", "");
      const auto& pods = s.value("has_final", false)   ? n["pods_final"]
                         : s.value("has_after", false) ? n["pods_after"]
                                                       : n["pods_before"];
      std::vector<std::string> fills;
      std::string label = name;
      for (const auto& p : pods) {
        fills.push_back(colour[p.value("job", "")]);
        label += "\\n" + p.value("pod", "");
      }
      if (n["load_after"].is_number()) label += fmt::format("\\ncpu {:.0f}%", 100 * n["load_after"].get<double>());
      std::string style = "filled";
      std::string fill = "white";
      if (!fills.empty()) {
        std::sort(fills.begin(), fills.end());
        fills.erase(std::unique(fills.begin(), fills.end()), fills.end());
        fill = fills[0];
        for (size_t i = 1; i < fills.size(); ++i) fill += ":" + fills[i];
        if (fills.size() > 1) style = "striped";
      }
      std::string extra;
      if (hot.count(name)) {
        label = "HOT " + label;
        extra = ", color=\"#d62728\", penwidth=4, fontcolor=\"#d62728\"";
      }
      d << fmt::format("    \"n{}\" [label=\"{}\", shape=box, style=\"{}\", fillcolor=\"{}\"{}];\n", name, label,
                       style, fill, extra);
      d << fmt::format("    \"l{}\" -> \"n{}\";\n", n.value("leaf", ""), name);
    }
    d << "  }\n";
    ++fi;
  }
  // Moves made by the rebalancer.
  for (const auto& r : s.value("replaced", nlohmann::json::array())) {
    const std::string pod = r.value("pod", "");
    d << fmt::format("  \"n{}\" -> \"n{}\" [constraint=false, style=dashed, color=\"#d62728\", arrowhead=normal, "
                     "label=\"{}\", fontcolor=\"#d62728\", fontsize=9];\n",
                     r.value("from", ""), r.value("to", ""), pod.substr(pod.find('/') + 1));
  }
  for (const auto& e : defrag.value("evictions", nlohmann::json::array())) {
    const std::string pod = e.value("pod", "");
    d << fmt::format("  \"n{}\" -> \"n{}\" [constraint=false, style=dashed, color=\"#1f77b4\", arrowhead=normal, "
                     "label=\"{}\", fontcolor=\"#1f77b4\", fontsize=9];\n",
                     e.value("from", ""), e.value("to", ""), pod.substr(pod.find('/') + 1));
  }
  d << rail_unit_dot(s.value("rails", nlohmann::json::object()), kRailGangColour);
  // Legend: one swatch per job.
  d << "  subgraph cluster_legend {\n    label=\"jobs\"; style=rounded; color=\"#999999\";\n";
  std::string prev;
  nlohmann::json legend = s["jobs"];
  for (const auto& j : s.value("jobs_added", nlohmann::json::array())) legend.push_back(j);
  for (const auto& j : legend) {
    const std::string name = j.value("name", "");
    d << fmt::format("    \"job_{}\" [label=\"{}\\n{}{}\", shape=box, fillcolor=\"{}\"];\n", name, name,
                     j.value("kind", ""), j.value("minMember", 0) ? fmt::format(", min {}", j.value("minMember", 0)) : "",
                     colour[name]);
    if (!prev.empty()) d << fmt::format("    \"job_{}\" -> \"job_{}\" [style=invis];\n", prev, name);
    prev = name;
  }
  if (const auto rails = s.value("rails", nlohmann::json::object()); !rails.empty()) {
    d << fmt::format("    \"job_rails\" [label=\"{}\\nhard-tier gang (rail unit)\", shape=box, fillcolor=\"{}\"];\n",
                     rails.value("gang", ""), kRailGangColour);
    if (!prev.empty()) d << fmt::format("    \"job_{}\" -> \"job_rails\" [style=invis];\n", prev);
  }
  d << "  }\n}\n";
  return d.str();
}

}  // namespace weft::demo
