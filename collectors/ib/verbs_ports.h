// The libibverbs view of the RDMA ports (ibv_get_device_list / ibv_query_port /
// ibv_query_gid): the only source for RoCE ports. Verbs cannot send SMPs, so the
// neighbour, uplinks, SM and fabric of IB ports stay empty with a reason.
#pragma once

#include <string>
#include <vector>

#include "collectors/ib/report.h"
#include "common/result.h"

namespace weft::ib {

// Every port of every verbs device; an error only when libibverbs cannot be loaded or
// its device list cannot be read.
Result<std::vector<PortReport>> verbs_ports();

// The RDMA device behind each verbs device (/sys/class/infiniband_verbs/*/ibdev), read
// without loading libibverbs; empty when there are none (or no ib_uverbs).
std::vector<std::string> verbs_device_names();

}  // namespace weft::ib
