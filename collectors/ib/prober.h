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

// memory: the last known place of each port; read and updated.
IbReport run_probe(const ProbeOptions& options, Backends& backends, PortMemory& memory);

// port_memory.cc: fills a port's fabric, leaf and spine from what it sees now, else from
// memory (saying so in the reasons), and keeps what it saw.
void remember_place(PortReport& port, PortMemory& memory);

// roles.cc: each port's PCI address and distance to every GPU (from sysfs under root).
void place_on_pcie(IbReport& report, const std::string& sysfs_root);
// roles.cc: each port's role, compute or storage (docs/ib-collector.md has the rule).
void assign_roles(IbReport& report, const std::vector<std::string>& compute_devices);

// Fills the report-level fields (rdma, fabric, leaf, spine, rails, compute_devices) from the
// ports and their roles.
void summarize(IbReport& report);

}  // namespace weft::ib
