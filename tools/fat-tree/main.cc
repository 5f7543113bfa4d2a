// weft-fat-tree: writes an ibsim .net file of a 2- or 3-level fat tree and, optionally,
// a JSON file with the leaf and spine every host should report.
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "tools/fat-tree/fat_tree.h"

int main(int argc, char** argv) {
  CLI::App app{"Generate an ibsim fat-tree fabric with explicit GUIDs"};
  weft::fattree::Spec s;
  std::string net_out = "-", json_out;
  app.add_option("--levels", s.levels, "2 or 3")->capture_default_str();
  app.add_option("--hosts", s.hosts, "Number of hosts")->capture_default_str();
  app.add_option("--hosts-per-leaf", s.hosts_per_leaf, "Hosts under each leaf switch")->capture_default_str();
  app.add_option("--spines", s.spines, "2 levels: spine switches")->capture_default_str();
  app.add_option("--leaves-per-pod", s.leaves_per_pod, "3 levels: leaves per pod")->capture_default_str();
  app.add_option("--aggs-per-pod", s.aggs_per_pod, "3 levels: aggregation switches per pod")->capture_default_str();
  app.add_option("--cores-per-agg", s.cores_per_agg, "3 levels: core switches per aggregation plane")->capture_default_str();
  app.add_option("--fabric", s.fabric, "Fabric number 1..255 (in every GUID)")->capture_default_str();
  app.add_option("--prefix", s.prefix, "Node name prefix (default f<fabric>-)");
  app.add_option("--out,-o", net_out, "ibsim .net file ('-' for stdout)")->capture_default_str();
  app.add_option("--json", json_out, "Also write the expected leaf/spine per host here");
  CLI11_PARSE(app, argc, argv);

  auto tree = weft::fattree::build(s);
  if (!tree) {
    std::cerr << "weft-fat-tree: " << tree.message() << "\n";
    return 2;
  }
  auto write = [](const std::string& path, const std::string& text) {
    if (path == "-") {
      std::cout << text;
      return true;
    }
    std::ofstream f(path);
    f << text;
    f.close();
    if (!f) std::cerr << "weft-fat-tree: cannot write " << path << "\n";
    return static_cast<bool>(f);
  };
  if (!write(net_out, weft::fattree::render_net(*tree))) return 1;
  if (!json_out.empty() && !write(json_out, weft::fattree::render_json(*tree).dump(2) + "\n")) return 1;
  return 0;
}
