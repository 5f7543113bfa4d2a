#include "collectors/ib/mad.h"

#include <fmt/format.h>

namespace weft::ib {

uint64_t get_be(std::span<const uint8_t> b, size_t off, size_t len) {
  uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) v = (v << 8) | b[off + i];
  return v;
}

void put_be(std::span<uint8_t> b, size_t off, size_t len, uint64_t v) {
  for (size_t i = 0; i < len; ++i) b[off + len - 1 - i] = static_cast<uint8_t>(v >> (8 * i));
}

std::string MadDestination::to_string() const {
  if (!directed()) return fmt::format("LID {}", lid);
  std::string s = "DR ";
  for (size_t i = 0; i < dr_path.size(); ++i) s += (i ? "," : "") + std::to_string(dr_path[i]);
  return s;
}

namespace {

Bytes header(uint8_t mgmt_class, uint8_t class_version, uint8_t method, uint16_t attr_id, uint32_t attr_mod) {
  Bytes m(kMadSize, 0);
  m[0] = 1;
  m[1] = mgmt_class;
  m[2] = class_version;
  m[3] = method;
  put_be(m, 16, 2, attr_id);
  put_be(m, 20, 4, attr_mod);
  return m;
}

const char* attr_name(uint8_t mgmt_class, uint16_t attr) {
  if (mgmt_class == kClassSa) return attr == kAttrSaNodeRecord ? "SA NodeRecord" : "SA attribute";
  if (mgmt_class == kClassPerf) {
    if (attr == kAttrPortCounters) return "PortCounters";
    if (attr == kAttrPortCountersExt) return "PortCountersExtended";
    return "PerfMgt attribute";
  }
  switch (attr) {
    case kAttrNodeInfo: return "NodeInfo";
    case kAttrNodeDescription: return "NodeDescription";
    case kAttrPortInfo: return "PortInfo";
    case kAttrSmInfo: return "SMInfo";
    default: return "SMP attribute";
  }
}

}  // namespace

Result<MadRequest> smp_get(const MadDestination& to, uint16_t attr_id, uint32_t attr_mod) {
  MadRequest r;
  r.to = to;
  if (to.directed()) {
    if (to.dr_path.front() != 0) return make_error("directed route " + to.to_string() + ": must start at 0");
    if (to.dr_path.size() - 1 > kDrMaxHops) return make_error("directed route " + to.to_string() + ": too many hops");
    r.mad = header(kClassSmiDr, 1, kMethodGet, attr_id, attr_mod);
    r.mad[6] = 0;                                              // hop pointer
    r.mad[7] = static_cast<uint8_t>(to.dr_path.size() - 1);   // hop count
    put_be(r.mad, 32, 2, 0xffff);                              // DrSLID: permissive
    put_be(r.mad, 34, 2, 0xffff);                              // DrDLID: permissive
    for (size_t i = 0; i < to.dr_path.size(); ++i) r.mad[128 + i] = to.dr_path[i];
  } else {
    if (to.lid == 0 || to.lid >= 0xc000) return make_error(fmt::format("LID {}: not a unicast LID", to.lid));
    r.mad = header(kClassSmiLid, 1, kMethodGet, attr_id, attr_mod);
  }
  r.what = std::string(attr_name(r.mad[1], attr_id)) + " via " + to.to_string();
  return r;
}

MadRequest sa_node_records(uint16_t sm_lid, uint8_t node_type) {
  MadRequest r;
  r.to.lid = sm_lid;
  r.mad = header(kClassSa, 2, kMethodGetTable, kAttrSaNodeRecord, 0);
  if (node_type != 0) {
    put_be(r.mad, 48, 8, 1u << 4);                 // component mask: NodeInfo.NodeType
    r.mad[kSaDataOffset + 4 + 2] = node_type;      // NodeRecord: LID(2) rsvd(2) NodeInfo{.., NodeType @2}
  }
  r.what = fmt::format("SA NodeRecord table at LID {}", sm_lid);
  return r;
}

MadRequest perf_get(uint16_t lid, uint16_t attr_id, uint8_t port_select) {
  MadRequest r;
  r.to.lid = lid;
  r.mad = header(kClassPerf, 1, kMethodGet, attr_id, 0);
  r.mad[kGmpDataOffset + 1] = port_select;
  put_be(r.mad, kGmpDataOffset + 2, 2, 0xffff);   // CounterSelect: all
  r.what = fmt::format("{} of port {} at LID {}", attr_name(kClassPerf, attr_id), port_select, lid);
  return r;
}

Result<MadHeader> parse_header(std::span<const uint8_t> mad) {
  if (mad.size() < 24) return make_error(fmt::format("MAD of {} bytes: shorter than its 24-byte header", mad.size()));
  MadHeader h;
  h.base_version = mad[0];
  h.mgmt_class = mad[1];
  h.class_version = mad[2];
  h.method = mad[3];
  h.status = static_cast<uint16_t>(get_be(mad, 4, 2));
  if (h.mgmt_class == kClassSmiDr) h.status &= 0x7fff;   // top bit is the direction (D) bit
  h.tid = get_be(mad, 8, 8);
  h.attr_id = static_cast<uint16_t>(get_be(mad, 16, 2));
  h.attr_mod = static_cast<uint32_t>(get_be(mad, 20, 4));
  return h;
}

std::string status_text(uint16_t status) {
  std::string s = fmt::format("status 0x{:04x}", status);
  if (status & 0x1) s += " busy";
  if (status & 0x2) s += " redirect";
  switch ((status >> 2) & 0x7) {
    case 1: s += " (bad version)"; break;
    case 2: s += " (method not supported)"; break;
    case 3: s += " (method/attribute not supported)"; break;
    case 7: s += " (invalid attribute or modifier)"; break;
    default: break;
  }
  if (status >> 8) s += fmt::format(" (class specific 0x{:x})", status >> 8);
  return s;
}

Status check_reply(std::span<const uint8_t> request, std::span<const uint8_t> reply) {
  auto q = parse_header(request);
  if (!q) return q.error();
  auto r = parse_header(reply);
  if (!r) return r.error();
  const size_t min_size = r->mgmt_class == kClassSa ? kSaDataOffset : kMadSize;
  if (reply.size() < min_size)
    return make_error(fmt::format("reply of {} bytes, expected at least {}", reply.size(), min_size));
  if (r->base_version != 1) return make_error(fmt::format("reply base version {}, expected 1", r->base_version));
  if (r->mgmt_class != q->mgmt_class)
    return make_error(fmt::format("reply class 0x{:02x}, expected 0x{:02x}", r->mgmt_class, q->mgmt_class));
  const uint8_t want_method = q->method == kMethodGetTable ? kMethodGetTableResp : kMethodGetResp;
  if (r->method != want_method)
    return make_error(fmt::format("reply method 0x{:02x}, expected 0x{:02x}", r->method, want_method));
  if (r->attr_id != q->attr_id)
    return make_error(fmt::format("reply attribute 0x{:04x}, expected 0x{:04x}", r->attr_id, q->attr_id));
  // An SA GetTable with no matching record answers ERR_NO_RECORDS (class status 3).
  if (r->status != 0) return make_error("reply " + status_text(r->status), r->status);
  return {};
}

}  // namespace weft::ib
