// ib_probe_loop: one IbProber probing again and again in ONE process, the way
// `weft-agent run` uses it. Each stdin line "probe" runs a probe and prints
//   probe <n> <json>
// with json = {"ib": ib_json, "labels": ib_labels, "fds": open descriptors after the probe}.
// Tests run it as a host of an ibsim fabric (under umad2sim) to see re-probes work.
#include <filesystem>
#include <iostream>
#include <string>

#include "collectors/ib/report.h"

int main() {
  weft::ib::IbProber prober(weft::ib::ProbeOptions{});   // the defaults `weft-agent run` uses
  std::string line;
  for (int n = 1; std::getline(std::cin, line); ++n) {
    if (line != "probe") {
      std::cout << "unknown command " << line << std::endl;
      continue;
    }
    const auto report = prober.probe();
    nlohmann::json j;
    j["ib"] = weft::ib::ib_json(report);
    j["labels"] = weft::ib::ib_labels(report);
    std::error_code ec;
    long fds = 0;
    for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec); !ec && it != std::filesystem::directory_iterator();
         it.increment(ec))
      ++fds;
    j["fds"] = fds;
    std::cout << "probe " << n << " " << j.dump() << std::endl;
  }
  return 0;
}
