// MAD wire format (IBA vol 1 ch. 13-16): building the requests a probe sends and checking
// the header of a reply. Big-endian, fixed 256-byte MADs (SA replies may be longer after
// RMPP reassembly). No I/O here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"

namespace weft::ib {

using Bytes = std::vector<uint8_t>;

inline constexpr size_t kMadSize = 256;
inline constexpr size_t kSmpDataOffset = 64;     // LID-routed and directed-route SMP data
inline constexpr size_t kSmpDataSize = 64;
inline constexpr size_t kGmpDataOffset = 64;     // PerfMgt (vendor-neutral GMP) data
inline constexpr size_t kSaDataOffset = 56;      // SA records start here
inline constexpr size_t kDrMaxHops = 63;

enum MgmtClass : uint8_t {
  kClassSmiLid = 0x01,
  kClassSa = 0x03,
  kClassPerf = 0x04,
  kClassSmiDr = 0x81,
};

enum Method : uint8_t {
  kMethodGet = 0x01,
  kMethodGetResp = 0x81,
  kMethodGetTable = 0x12,
  kMethodGetTableResp = 0x92,
};

enum AttrId : uint16_t {
  kAttrClassPortInfo = 0x0001,
  kAttrNodeDescription = 0x0010,
  kAttrNodeInfo = 0x0011,
  kAttrPortInfo = 0x0015,
  kAttrSmInfo = 0x0020,
  kAttrSaNodeRecord = 0x0011,
  kAttrPortCounters = 0x0012,
  kAttrPortCountersExt = 0x001D,
};

// Where a MAD goes: a directed route from the local port (path[0] must be 0; path.size()-1
// hops), or a LID (LID-routed SMP, or a GMP to QP1).
struct MadDestination {
  std::vector<uint8_t> dr_path;  // non-empty: directed route
  uint16_t lid = 0;
  bool directed() const { return !dr_path.empty(); }
  std::string to_string() const;  // "DR 0,1,3" or "LID 12"
};

struct MadRequest {
  MadDestination to;
  Bytes mad;          // kMadSize bytes, TID low 32 bits filled by the transport
  std::string what;   // for errors: "NodeInfo via DR 0,1"
};

// Requests. attr_mod as in the IBA (port number for PortInfo, etc.).
Result<MadRequest> smp_get(const MadDestination& to, uint16_t attr_id, uint32_t attr_mod);
// SA GetTable of NodeRecords; node_type 0 = every node, else NodeInfo.NodeType to match.
MadRequest sa_node_records(uint16_t sm_lid, uint8_t node_type);
// PerfMgt Get of PortCounters (or PortCountersExtended) of port_select at lid.
MadRequest perf_get(uint16_t lid, uint16_t attr_id, uint8_t port_select);

struct MadHeader {
  uint8_t base_version = 0, mgmt_class = 0, class_version = 0, method = 0;
  uint16_t status = 0;       // for DR SMPs without the D bit
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
};

Result<MadHeader> parse_header(std::span<const uint8_t> mad);
// Checks that a reply answers its request (class, response method, attribute, status 0)
// and is long enough; the error says what was wrong.
Status check_reply(std::span<const uint8_t> request, std::span<const uint8_t> reply);
std::string status_text(uint16_t status);

// Big-endian field access on a byte span; the caller has checked the length.
uint64_t get_be(std::span<const uint8_t> b, size_t off, size_t len);
void put_be(std::span<uint8_t> b, size_t off, size_t len, uint64_t v);

}  // namespace weft::ib
