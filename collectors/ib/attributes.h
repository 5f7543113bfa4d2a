// Parsers for the attributes a probe reads. Each takes the whole reply MAD (already
// matched to its request by check_reply) and rejects short or inconsistent data with
// an error that names the attribute and the problem.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

namespace weft::ib {

struct NodeInfo {
  uint8_t node_type = 0;       // 1 CA, 2 switch, 3 router
  uint8_t num_ports = 0;
  uint64_t system_image_guid = 0;
  uint64_t node_guid = 0;
  uint64_t port_guid = 0;
  uint8_t local_port = 0;      // the port the SMP entered by
};

struct PortInfo {
  uint64_t gid_prefix = 0;
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
  uint32_t capability_mask = 0;
  uint8_t local_port = 0;
  uint8_t link_width_active = 0;   // bit: 1 1x, 2 4x, 4 8x, 8 12x, 16 2x
  uint8_t link_speed_active = 0;   // 1 SDR, 2 DDR, 4 QDR
  uint8_t link_speed_ext_active = 0;  // 1 FDR, 2 EDR, 4 HDR, 8 NDR (0: none)
  uint8_t port_state = 0;          // 1 DOWN .. 5 ACTIVE_DEFER
  uint8_t phys_state = 0;          // 1 SLEEP, 2 POLLING, 3 DISABLED, 4 TRAINING, 5 LINKUP ...
  uint8_t lmc = 0;
};

struct SmInfo {
  uint64_t guid = 0;
  uint32_t act_count = 0;
  uint8_t priority = 0;
  uint8_t state = 0;               // 0 not active, 1 discovering, 2 standby, 3 master
};

struct NodeRecord {
  uint16_t lid = 0;
  NodeInfo info;
  std::string description;
};

Result<NodeInfo> parse_node_info(std::span<const uint8_t> mad);
Result<std::string> parse_node_description(std::span<const uint8_t> mad);
Result<PortInfo> parse_port_info(std::span<const uint8_t> mad);
Result<SmInfo> parse_sm_info(std::span<const uint8_t> mad);
// The records of an SA GetTable reply (RMPP already reassembled): stride from the
// AttributeOffset field, records with a zero node GUID (padding) dropped.
Result<std::vector<NodeRecord>> parse_node_records(std::span<const uint8_t> mad);
// PortCounters / PortCountersExtended as short names -> values (data counters in bytes).
Result<std::map<std::string, uint64_t>> parse_port_counters(std::span<const uint8_t> mad);
Result<std::map<std::string, uint64_t>> parse_port_counters_ext(std::span<const uint8_t> mad);

std::string node_type_name(uint8_t type);     // "ca" | "switch" | "router" | "type N"
std::string port_state_name(uint8_t state);   // "DOWN" | "INIT" | "ARMED" | "ACTIVE" | ...
std::string phys_state_name(uint8_t state);   // "LINKUP" | "POLLING" | ...
std::string sm_state_name(uint8_t state);     // "MASTER" | ...
std::string width_name(uint8_t width_active);  // "4x"
int width_lanes(uint8_t width_active);
std::string speed_name(uint8_t speed_active, uint8_t speed_ext_active);
double lane_gbps(uint8_t speed_active, uint8_t speed_ext_active);

}  // namespace weft::ib
