// ib_sim_probe: one probe of every HCA of a simulated host, each HCA a node of some
// running ibsim, through ibsim's own client protocol (sim_umad.h) — what weft-agent does on
// a real host with many HCAs, which umad2sim (one node per process) cannot show. Used by
// bench/ib_probe (a rail-optimized node against ibnetdiscover) and the demo's rail unit.
//
//   ib_sim_probe --hca DEVICE=SOCKNAME:NODE [--hca ...] [--recall PORTS-JSON-FILE]
//
// Prints {"ib": ib_json, "labels": ib_labels, "annotation": the weft.dev/ib-ports value,
// "mads": MADs sent}. --recall: the node's weft.dev/ib-ports annotation, read back as a
// restarted agent does before its first probe.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "collectors/ib/prober.h"
#include "tests/ib/sim_umad.h"

namespace {

int usage(const std::string& why) {
  std::cerr << "ib_sim_probe: " << why << "\nusage: ib_sim_probe --hca DEVICE=SOCKNAME:NODE ... [--recall FILE]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<weft::ib::sim::Hca> hcas;
  weft::ib::PortMemory memory;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return usage(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--hca") {
      const size_t eq = value.find('='), colon = value.find(':', eq == std::string::npos ? 0 : eq);
      if (eq == std::string::npos || colon == std::string::npos) return usage("--hca " + value + ": not DEVICE=SOCKNAME:NODE");
      hcas.push_back({value.substr(0, eq), value.substr(eq + 1, colon - eq - 1), value.substr(colon + 1)});
    } else if (arg == "--recall") {
      std::ifstream in(value);
      std::stringstream text;
      text << in.rdbuf();
      auto ports = nlohmann::json::parse(text.str(), nullptr, false);
      if (!in || !ports.is_array()) return usage("--recall " + value + ": not a JSON array of ports");
      memory = weft::ib::memory_from_ports_json(ports);
    } else {
      return usage("unknown argument " + arg);
    }
  }
  if (hcas.empty()) return usage("no --hca");
  weft::ib::sim::Devices devices(hcas);
  weft::ib::Backends b;
  b.umad = &devices;
  b.verbs_missing = "not used: every HCA is an ibsim node";
  weft::ib::ProbeOptions options;
  options.backend = "umad";
  options.sysfs_root = "";
  const auto report = weft::ib::run_probe(options, b, memory);
  nlohmann::json out;
  out["ib"] = weft::ib::ib_json(report);
  out["labels"] = weft::ib::ib_labels(report);
  nlohmann::json annotation = nlohmann::json::array();
  for (const auto& p : report.ports) annotation.push_back(weft::ib::port_json(p));
  out["annotation"] = annotation.dump();
  out["mads"] = devices.mads_sent();
  std::cout << out.dump() << std::endl;
  return report.ports.empty() ? 1 : 0;
}
