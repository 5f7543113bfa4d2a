// weft-fat-tree: writes an ibsim .net file of a 2- or 3-level fat tree and, optionally,
// a JSON file with the leaf and spine every host should report. With --rails: rail-
// optimized units instead, one .net file per subnet (<out>-plane<p>.net, <out>-storage.net).
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "tools/fat-tree/fat_tree.h"
#include "tools/fat-tree/rail_units.h"

namespace {

bool write(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return true;
  }
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) std::cerr << "weft-fat-tree: cannot write " << path << "\n";
  return static_cast<bool>(f);
}

int write_rail_units(const weft::fattree::RailSpec& spec, const std::string& out, const std::string& json_out) {
  auto units = weft::fattree::build(spec);
  if (!units) {
    std::cerr << "weft-fat-tree: " << units.message() << "\n";
    return 2;
  }
  if (out == "-") {
    std::cerr << "weft-fat-tree: --rails writes one file per subnet: give --out PREFIX\n";
    return 2;
  }
  for (int p = 0; p < static_cast<int>(units->subnets.size()); ++p) {
    const std::string name = p < spec.planes ? out + "-plane" + std::to_string(p) + ".net" : out + "-storage.net";
    if (!write(name, weft::fattree::render_net(units->subnets[p]))) return 1;
  }
  if (!json_out.empty() && !write(json_out, weft::fattree::render_json(*units).dump(2) + "\n")) return 1;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Generate an ibsim fat-tree fabric (or rail-optimized units) with explicit GUIDs"};
  weft::fattree::Spec s;
  weft::fattree::RailSpec r;
  bool storage_on_compute = false;
  std::string net_out = "-", json_out;
  app.add_option("--levels", s.levels, "2 or 3")->capture_default_str();
  app.add_option("--hosts", s.hosts, "Number of hosts")->capture_default_str();
  app.add_option("--hosts-per-leaf", s.hosts_per_leaf, "Hosts under each leaf switch")->capture_default_str();
  app.add_option("--spines", s.spines, "2 levels (and rail units, per subnet): spine switches")->capture_default_str();
  app.add_option("--leaves-per-pod", s.leaves_per_pod, "3 levels: leaves per pod")->capture_default_str();
  app.add_option("--aggs-per-pod", s.aggs_per_pod, "3 levels: aggregation switches per pod")->capture_default_str();
  app.add_option("--cores-per-agg", s.cores_per_agg, "3 levels: core switches per aggregation plane")->capture_default_str();
  app.add_option("--fabric", s.fabric, "Fabric number 1..255 (in every GUID)")->capture_default_str();
  app.add_option("--prefix", s.prefix, "Node name prefix (default f<fabric>-, rail units u<fabric>-)");
  auto* rails = app.add_option("--rails", r.rails, "Rail-optimized units: compute HCAs (rails) per node");
  app.add_option("--nodes-per-unit", r.nodes_per_unit, "Rail units: nodes per unit")->capture_default_str();
  app.add_option("--units", r.units, "Rail units: how many")->capture_default_str();
  app.add_option("--planes", r.planes, "Rail units: compute subnets the rails are split over")->capture_default_str();
  app.add_option("--storage-hcas", r.storage_hcas, "Rail units: storage HCAs per node")->capture_default_str();
  app.add_flag("--storage-on-compute", storage_on_compute,
               "Rail units: storage HCAs on storage leaves of compute plane 0 (default: a storage subnet of their own)");
  app.add_option("--out,-o", net_out, "ibsim .net file ('-' for stdout); rail units: the files' path prefix")
      ->capture_default_str();
  app.add_option("--json", json_out, "Also write the expected leaf/spine (rail group) per host here");
  CLI11_PARSE(app, argc, argv);

  if (rails->count() > 0) {
    r.spines = s.spines;
    r.fabric = s.fabric;
    r.prefix = s.prefix;
    r.storage_subnet = !storage_on_compute;
    return write_rail_units(r, net_out, json_out);
  }
  auto tree = weft::fattree::build(s);
  if (!tree) {
    std::cerr << "weft-fat-tree: " << tree.message() << "\n";
    return 2;
  }
  if (!write(net_out, weft::fattree::render_net(*tree))) return 1;
  if (!json_out.empty() && !write(json_out, weft::fattree::render_json(*tree).dump(2) + "\n")) return 1;
  return 0;
}
