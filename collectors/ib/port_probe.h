// The umad probe of one local IB port: its PortInfo, the master SM (SMInfo at the SM LID),
// the first-hop neighbour (DR NodeInfo/NodeDescription on 0,<port>), the switches one hop
// above a first-hop switch (DR through its linked ports), the subnet id (smallest switch
// GUID in the SA's NodeRecords) and PerfMgt counters. Queries of a round go out together.
#pragma once

#include "collectors/ib/leaf_walks.h"
#include "collectors/ib/mad_transport.h"
#include "collectors/ib/report.h"

namespace weft::ib {

struct PortProbeOptions {
  MadPolicy policy;
  bool counters = true;
  LeafWalks* walks = nullptr;   // shared by the ports of one probe; null: every port walks its leaf
};

// Never fails as a whole: what could not be learnt is left empty with a reason and an
// entry in `errors`. `fabric` is what the SA said now ("" with fabric_reason if it did not).
PortReport probe_umad_port(const LocalPort& port, MadTransport& transport, const PortProbeOptions& options);

}  // namespace weft::ib
