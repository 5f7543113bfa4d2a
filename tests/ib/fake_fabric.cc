#include "tests/ib/fake_fabric.h"

#include <infiniband/mad.h>

#include <algorithm>
#include <cstring>
#include <thread>

namespace weft::ib::fake {

namespace {

constexpr size_t kSaRecordStride = 112;   // NodeRecord (108 bytes) padded to 8-byte words

uint16_t attr_of(const Bytes& m) { return static_cast<uint16_t>(get_be(m, 16, 2)); }
uint32_t mod_of(const Bytes& m) { return static_cast<uint32_t>(get_be(m, 20, 4)); }

void node_info(uint8_t* d, uint8_t type, uint8_t ports, uint64_t guid, uint8_t local_port) {
  mad_set_field(d, 0, IB_NODE_BASE_VERS_F, 1);
  mad_set_field(d, 0, IB_NODE_TYPE_F, type);
  mad_set_field(d, 0, IB_NODE_NPORTS_F, ports);
  mad_set_field64(d, 0, IB_NODE_SYSTEM_GUID_F, guid);
  mad_set_field64(d, 0, IB_NODE_GUID_F, guid);
  mad_set_field64(d, 0, IB_NODE_PORT_GUID_F, guid);
  mad_set_field(d, 0, IB_NODE_LOCAL_PORT_F, local_port);
}

void port_info(uint8_t* d, uint64_t prefix, uint16_t lid, uint16_t sm_lid, uint8_t state, uint8_t phys, uint8_t port) {
  mad_set_field64(d, 0, IB_PORT_GID_PREFIX_F, prefix);
  mad_set_field(d, 0, IB_PORT_LID_F, lid);
  mad_set_field(d, 0, IB_PORT_SMLID_F, sm_lid);
  mad_set_field(d, 0, IB_PORT_LOCAL_PORT_F, port);
  mad_set_field(d, 0, IB_PORT_STATE_F, state);
  mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, phys);
  mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);   // 4x
  mad_set_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);   // QDR
}

// The leaf port q: the one facing us, spines from the top port down, else down.
std::optional<uint64_t> spine_on(const HostPort& h, uint32_t q) {
  for (size_t i = 0; i < h.spines.size(); ++i)
    if (q == h.leaf_radix - i) return h.spines[i];
  return std::nullopt;
}

std::optional<Bytes> answer_smp(const HostPort& h, const MadRequest& r, Bytes m) {
  uint8_t* d = m.data() + kSmpDataOffset;
  std::memset(d, 0, kSmpDataSize);
  const auto& path = r.to.dr_path;
  const uint16_t attr = attr_of(r.mad);
  const uint32_t mod = mod_of(r.mad);
  const bool up = h.state >= 2;
  const uint16_t sm_lid = h.state >= 2 && h.subnet ? h.subnet->sm_lid : 0;
  const uint64_t prefix = h.subnet ? h.subnet->gid_prefix : 0xfe80000000000000ULL;
  if (!r.to.directed()) {   // LID-routed: only SMInfo at the SM
    if (attr != kAttrSmInfo || !h.subnet || !h.subnet->sm_answers || r.to.lid != h.subnet->sm_lid) return std::nullopt;
    mad_set_field64(d, 0, IB_SMINFO_GUID_F, h.subnet->sm_guid);
    mad_set_field(d, 0, IB_SMINFO_PRIO_F, h.subnet->sm_priority);
    mad_set_field(d, 0, IB_SMINFO_STATE_F, 3);
    return m;
  }
  if (path.size() == 1) {
    if (attr == kAttrPortInfo) port_info(d, prefix, h.state == 4 ? h.lid : 0, sm_lid, h.state, up ? 5 : 2, static_cast<uint8_t>(mod));
    else if (attr == kAttrNodeInfo) node_info(d, 1, 2, h.port_guid, static_cast<uint8_t>(h.port));
    else return std::nullopt;
    return m;
  }
  if (!up) return std::nullopt;   // nothing beyond a port that is down
  if (path.size() == 2) {
    if (attr == kAttrNodeInfo) node_info(d, 2, h.leaf_radix, h.leaf_guid, h.leaf_port);
    else if (attr == kAttrNodeDescription) std::snprintf(reinterpret_cast<char*>(d), kSmpDataSize, "leaf-%llx", static_cast<unsigned long long>(h.leaf_guid));
    else if (attr == kAttrPortInfo) {
      const bool linked = mod == h.leaf_port || spine_on(h, mod).has_value();
      port_info(d, prefix, 0, sm_lid, linked ? 4 : 1, linked ? 5 : 2, static_cast<uint8_t>(mod));
    } else return std::nullopt;
    return m;
  }
  if (path.size() == 3 && attr == kAttrNodeInfo) {
    auto spine = spine_on(h, path[2]);
    if (!spine) return std::nullopt;
    node_info(d, 2, 16, *spine, 1);
    return m;
  }
  return std::nullopt;
}

std::optional<Bytes> answer_sa(const HostPort& h, const MadRequest& r, Bytes m) {
  if (!h.subnet || !h.subnet->sa_answers || r.to.lid != h.subnet->sm_lid || h.state != 4) return std::nullopt;
  const bool switches_only = get_be(r.mad, 48, 8) & (1u << 4);
  std::vector<uint64_t> guids = h.subnet->switch_guids;
  if (!switches_only) guids.push_back(h.port_guid);
  m.resize(kSaDataOffset + guids.size() * kSaRecordStride, 0);
  put_be(m, 44, 2, kSaRecordStride / 8);
  for (size_t i = 0; i < guids.size(); ++i) {
    uint8_t* rec = m.data() + kSaDataOffset + i * kSaRecordStride;
    put_be({rec, kSaRecordStride}, 0, 2, 100 + i);
    const bool sw = i < h.subnet->switch_guids.size();
    node_info(rec + 4, sw ? 2 : 1, sw ? 8 : 2, guids[i], 0);
  }
  if (guids.empty()) put_be(m, 4, 2, 0x0300);   // ERR_NO_RECORDS
  return m;
}

std::optional<Bytes> answer_perf(const HostPort& h, const MadRequest& r, Bytes m) {
  if (h.state != 4 || r.to.lid != h.lid) return std::nullopt;
  uint8_t* d = m.data() + kGmpDataOffset;
  std::memset(d, 0, kMadSize - kGmpDataOffset);
  if (attr_of(r.mad) == kAttrPortCounters) {
    mad_set_field(d, 0, IB_PC_ERR_SYM_F, 2);
    mad_set_field(d, 0, IB_PC_XMT_BYTES_F, 1000);
  } else {
    mad_set_field64(d, 0, IB_PC_EXT_XMT_BYTES_F, 5000);
  }
  return m;
}

}  // namespace

std::string attribute_key(const MadRequest& r) {
  if (r.mad[1] == kClassSa) return "SA";
  if (r.mad[1] == kClassPerf) return attr_of(r.mad) == kAttrPortCounters ? "PortCounters" : "PortCountersExtended";
  switch (attr_of(r.mad)) {
    case kAttrNodeInfo: return "NodeInfo";
    case kAttrNodeDescription: return "NodeDescription";
    case kAttrPortInfo: return "PortInfo";
    case kAttrSmInfo: return "SMInfo";
    default: return "other";
  }
}

std::optional<Bytes> answer(const HostPort& h, const MadRequest& r) {
  Bytes m = r.mad;
  m[3] = r.mad[3] == kMethodGetTable ? kMethodGetTableResp : kMethodGetResp;
  switch (r.mad[1]) {
    case kClassSmiDr: m[4] |= 0x80; return answer_smp(h, r, std::move(m));   // D bit: a response
    case kClassSmiLid: return answer_smp(h, r, std::move(m));
    case kClassSa: return answer_sa(h, r, std::move(m));
    case kClassPerf: return answer_perf(h, r, std::move(m));
    default: return std::nullopt;
  }
}

Status Port::send(const MadRequest& r, uint32_t tid, std::chrono::milliseconds) {
  const std::string key = attribute_key(r);
  const int attempt = ++attempts_[key + " " + r.to.to_string() + " " + std::to_string(mod_of(r.mad))];
  std::unique_lock<std::mutex> held;
  if (counters_) {
    held = std::unique_lock<std::mutex>(counters_->lock);
    ++counters_->sends[key];
    ++counters_->total;
  }
  Fate fate = fate_ ? fate_(r, attempt) : Fate{};
  if (held) held.unlock();
  if (fate.drop) return {};
  auto reply = answer(host_, r);
  if (!reply) return {};
  put_be(*reply, 12, 4, tid);
  if (fate.garble) fate.garble(*reply);
  Received got;
  got.tid = tid;
  got.mad = std::move(*reply);
  const auto at = Clock::now() + fate.delay;
  auto pos = std::upper_bound(queue_.begin(), queue_.end(), at, [](auto t, const Pending& p) { return t < p.at; });
  queue_.insert(pos, Pending{at, std::move(got)});
  return {};
}

std::optional<MadPort::Received> Port::receive(std::chrono::milliseconds wait) {
  const auto until = Clock::now() + wait;
  if (queue_.empty() || queue_.front().at > until) {
    std::this_thread::sleep_until(until);
    return std::nullopt;
  }
  std::this_thread::sleep_until(queue_.front().at);
  auto got = std::move(queue_.front().got);
  queue_.pop_front();
  return got;
}

Result<std::vector<LocalPort>> Devices::ports() {
  std::vector<LocalPort> out;
  for (const HostPort* h : ports_) {
    LocalPort lp;
    lp.device = h->device;
    lp.port = h->port;
    lp.state = h->state;
    lp.phys_state = h->state >= 2 ? 5 : 2;
    lp.link_layer = h->link_layer;
    lp.lid = h->state == 4 ? h->lid : 0;
    lp.sm_lid = h->subnet && h->state >= 2 ? h->subnet->sm_lid : 0;
    lp.port_guid = h->port_guid;
    lp.node_guid = h->port_guid;
    lp.gid_prefix = h->subnet ? h->subnet->gid_prefix : 0;
    lp.rate_gbps = 40;
    out.push_back(lp);
  }
  return out;
}

Result<std::unique_ptr<MadTransport>> Devices::open(const std::string& device, int port) {
  for (const HostPort* h : ports_) {
    if (h->device == device && h->port == port)
      return make_pipelined_transport(std::make_unique<Port>(*h, fate_, &counters));
  }
  return make_error(device + " port " + std::to_string(port) + ": no such port");
}

}  // namespace weft::ib::fake
