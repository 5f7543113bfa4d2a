// The probe behind IbProber, with its backends passed in so tests can use fakes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "collectors/ib/mad_transport.h"
#include "collectors/ib/report.h"

namespace weft::ib {

struct Backends {
  UmadDevices* umad = nullptr;   // null: umad not built or not wanted
  std::string umad_missing;      // why umad is null
  std::function<Result<std::vector<PortReport>>()> verbs;  // empty: verbs not built
  std::string verbs_missing;
  // The devices verbs would list (cheap: no libibverbs). In auto, verbs runs only when
  // one of them is not an InfiniBand device umad has seen; empty: always run verbs.
  std::function<std::vector<std::string>()> verbs_devices;
};

// last_fabric: "device/port" -> last fabric id seen there; read and updated.
IbReport run_probe(const ProbeOptions& options, Backends& backends, std::map<std::string, std::string>& last_fabric);

// Fills the report-level fields (rdma, fabric, leaf, spine, compute_devices) from the ports.
void summarize(IbReport& report, const std::vector<std::string>& compute_devices);

}  // namespace weft::ib
