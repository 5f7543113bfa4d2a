#include "collectors/ib/attributes.h"

#include <fmt/format.h>

#include "collectors/ib/mad.h"

namespace weft::ib {

namespace {

// The attribute data of a reply, or an error when the reply is shorter than need.
Result<std::span<const uint8_t>> data_of(std::span<const uint8_t> mad, size_t offset, size_t need,
                                         const char* what) {
  if (mad.size() < offset + need)
    return make_error(fmt::format("{}: reply of {} bytes, need {}", what, mad.size(), offset + need));
  return mad.subspan(offset, need);
}

uint8_t hi(uint8_t b) { return b >> 4; }
uint8_t lo(uint8_t b) { return b & 0xf; }

NodeInfo node_info_at(std::span<const uint8_t> d) {
  NodeInfo n;
  n.node_type = d[2];
  n.num_ports = d[3];
  n.system_image_guid = get_be(d, 4, 8);
  n.node_guid = get_be(d, 12, 8);
  n.port_guid = get_be(d, 20, 8);
  n.local_port = d[36];
  return n;
}

Status check_node_info(const NodeInfo& n, const char* what) {
  if (n.node_type < 1 || n.node_type > 3) return make_error(fmt::format("{}: node type {} is not CA/switch/router", what, n.node_type));
  if (n.node_guid == 0) return make_error(fmt::format("{}: node GUID is zero", what));
  if (n.num_ports == 0) return make_error(fmt::format("{}: node has zero ports", what));
  return {};
}

std::string printable(std::span<const uint8_t> d) {
  std::string s;
  for (uint8_t c : d) {
    if (c == 0) break;
    s += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

Result<NodeInfo> parse_node_info(std::span<const uint8_t> mad) {
  auto d = data_of(mad, kSmpDataOffset, 40, "NodeInfo");
  if (!d) return d.error();
  NodeInfo n = node_info_at(*d);
  if (auto ok = check_node_info(n, "NodeInfo"); !ok) return ok.error();
  return n;
}

Result<std::string> parse_node_description(std::span<const uint8_t> mad) {
  auto d = data_of(mad, kSmpDataOffset, kSmpDataSize, "NodeDescription");
  if (!d) return d.error();
  return printable(*d);
}

Result<PortInfo> parse_port_info(std::span<const uint8_t> mad) {
  auto r = data_of(mad, kSmpDataOffset, kSmpDataSize, "PortInfo");
  if (!r) return r.error();
  auto d = *r;
  PortInfo p;
  p.gid_prefix = get_be(d, 8, 8);
  p.lid = static_cast<uint16_t>(get_be(d, 16, 2));
  p.sm_lid = static_cast<uint16_t>(get_be(d, 18, 2));
  p.capability_mask = static_cast<uint32_t>(get_be(d, 20, 4));
  p.local_port = d[28];
  p.link_width_active = d[31];
  p.port_state = lo(d[32]);
  p.phys_state = hi(d[33]);
  p.lmc = d[34] & 0x7;
  p.link_speed_active = hi(d[35]);
  if (p.capability_mask & (1u << 14)) p.link_speed_ext_active = hi(d[62]);  // IsExtendedSpeedsSupported
  if (p.port_state < 1 || p.port_state > 5)
    return make_error(fmt::format("PortInfo: port state {} out of range 1..5", p.port_state));
  if (p.phys_state > 7) return make_error(fmt::format("PortInfo: physical state {} out of range", p.phys_state));
  return p;
}

Result<SmInfo> parse_sm_info(std::span<const uint8_t> mad) {
  auto r = data_of(mad, kSmpDataOffset, 21, "SMInfo");
  if (!r) return r.error();
  auto d = *r;
  SmInfo s;
  s.guid = get_be(d, 0, 8);
  s.act_count = static_cast<uint32_t>(get_be(d, 16, 4));
  s.priority = hi(d[20]);
  s.state = lo(d[20]);
  if (s.guid == 0) return make_error("SMInfo: SM GUID is zero");
  if (s.state > 3) return make_error(fmt::format("SMInfo: SM state {} out of range 0..3", s.state));
  return s;
}

Result<std::vector<NodeRecord>> parse_node_records(std::span<const uint8_t> mad) {
  constexpr size_t kRecordSize = 108;  // LID(2) reserved(2) NodeInfo(40) NodeDescription(64)
  if (mad.size() < kSaDataOffset)
    return make_error(fmt::format("SA NodeRecord table: reply of {} bytes, need {}", mad.size(), kSaDataOffset));
  const size_t stride = static_cast<size_t>(get_be(mad, 44, 2)) * 8;  // AttributeOffset, 8-byte words
  std::vector<NodeRecord> out;
  if (stride == 0) return out;   // no records
  if (stride < kRecordSize)
    return make_error(fmt::format("SA NodeRecord table: attribute offset {} bytes, below the record size {}", stride, kRecordSize));
  for (size_t off = kSaDataOffset; off + kRecordSize <= mad.size(); off += stride) {
    auto d = mad.subspan(off, kRecordSize);
    NodeRecord r;
    r.lid = static_cast<uint16_t>(get_be(d, 0, 2));
    r.info = node_info_at(d.subspan(4, 40));
    if (r.info.node_guid == 0) continue;   // padding of the last segment
    if (auto ok = check_node_info(r.info, "SA NodeRecord"); !ok) return ok.error();
    r.description = printable(d.subspan(44, 64));
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::map<std::string, uint64_t>> parse_port_counters(std::span<const uint8_t> mad) {
  auto r = data_of(mad, kGmpDataOffset, 44, "PortCounters");
  if (!r) return r.error();
  auto d = *r;
  std::map<std::string, uint64_t> c;
  c["symbol_errors"] = get_be(d, 4, 2);
  c["link_error_recovery"] = d[6];
  c["link_downed"] = d[7];
  c["rcv_errors"] = get_be(d, 8, 2);
  c["rcv_remote_physical_errors"] = get_be(d, 10, 2);
  c["rcv_switch_relay_errors"] = get_be(d, 12, 2);
  c["xmit_discards"] = get_be(d, 14, 2);
  c["xmit_constraint_errors"] = d[16];
  c["rcv_constraint_errors"] = d[17];
  c["local_link_integrity_errors"] = hi(d[19]);
  c["excessive_buffer_overrun_errors"] = lo(d[19]);
  c["vl15_dropped"] = get_be(d, 22, 2);
  c["xmit_data_bytes"] = get_be(d, 24, 4) * 4;   // counted in 4-byte words
  c["rcv_data_bytes"] = get_be(d, 28, 4) * 4;
  c["xmit_packets"] = get_be(d, 32, 4);
  c["rcv_packets"] = get_be(d, 36, 4);
  c["xmit_wait"] = get_be(d, 40, 4);
  return c;
}

Result<std::map<std::string, uint64_t>> parse_port_counters_ext(std::span<const uint8_t> mad) {
  auto r = data_of(mad, kGmpDataOffset, 72, "PortCountersExtended");
  if (!r) return r.error();
  auto d = *r;
  std::map<std::string, uint64_t> c;
  c["xmit_data_bytes"] = get_be(d, 8, 8) * 4;
  c["rcv_data_bytes"] = get_be(d, 16, 8) * 4;
  c["xmit_packets"] = get_be(d, 24, 8);
  c["rcv_packets"] = get_be(d, 32, 8);
  c["unicast_xmit_packets"] = get_be(d, 40, 8);
  c["unicast_rcv_packets"] = get_be(d, 48, 8);
  c["multicast_xmit_packets"] = get_be(d, 56, 8);
  c["multicast_rcv_packets"] = get_be(d, 64, 8);
  return c;
}

std::string node_type_name(uint8_t type) {
  switch (type) {
    case 1: return "ca";
    case 2: return "switch";
    case 3: return "router";
    default: return fmt::format("type {}", type);
  }
}

std::string port_state_name(uint8_t s) {
  static const char* names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  return s < 6 ? names[s] : fmt::format("STATE_{}", s);
}

std::string phys_state_name(uint8_t s) {
  static const char* names[] = {"NOP", "SLEEP", "POLLING", "DISABLED", "PORT_CONFIGURATION_TRAINING",
                                "LINKUP", "LINK_ERROR_RECOVERY", "PHY_TEST"};
  return s < 8 ? names[s] : fmt::format("PHYS_{}", s);
}

std::string sm_state_name(uint8_t s) {
  static const char* names[] = {"NOT_ACTIVE", "DISCOVERING", "STANDBY", "MASTER"};
  return s < 4 ? names[s] : fmt::format("STATE_{}", s);
}

int width_lanes(uint8_t w) {
  switch (w) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
  }
}

std::string width_name(uint8_t w) {
  int lanes = width_lanes(w);
  return lanes ? fmt::format("{}x", lanes) : "";
}

std::string speed_name(uint8_t speed, uint8_t ext) {
  switch (ext) {
    case 1: return "FDR";
    case 2: return "EDR";
    case 4: return "HDR";
    case 8: return "NDR";
    default: break;
  }
  switch (speed) {
    case 1: return "SDR";
    case 2: return "DDR";
    case 4: return "QDR";
    default: return "";
  }
}

double lane_gbps(uint8_t speed, uint8_t ext) {
  switch (ext) {
    case 1: return 14.0;   // nominal per-lane data rates, as ibstat prints them
    case 2: return 25.0;
    case 4: return 50.0;
    case 8: return 100.0;
    default: break;
  }
  switch (speed) {
    case 1: return 2.5;
    case 2: return 5.0;
    case 4: return 10.0;
    default: return 0;
  }
}

}  // namespace weft::ib
