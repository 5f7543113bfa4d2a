#include "collectors/ib/umad_transport.h"

#include <cerrno>
#include <cstring>
#include <map>

#include <endian.h>
#include <fmt/format.h>
#include <infiniband/umad.h>

#include "common/log.h"

namespace weft::ib {

namespace {

constexpr uint32_t kQp1Qkey = 0x80010000;

// One open umad port with its four MAD agents (SMI LID-routed, SMI directed-route, SA, PerfMgt).
class UmadPort final : public MadPort {
 public:
  UmadPort(int port_id, std::string where) : port_id_(port_id), where_(std::move(where)) {}
  // Agents first: umad2sim (unlike the kernel) frees only one agent per closed port, and a
  // later umad_register in this process then fails once its 32 agent slots are used up.
  ~UmadPort() override {
    for (const auto& [cls, agent] : agents_) {
      if (int rc = umad_unregister(port_id_, agent); rc < 0)
        log::debug("{}: umad_unregister class 0x{:02x}: {}", where_, cls, strerror(-rc));
    }
    umad_close_port(port_id_);
  }
  UmadPort(const UmadPort&) = delete;
  UmadPort& operator=(const UmadPort&) = delete;

  Status register_agents() {
    struct Want { uint8_t cls, version, rmpp; };
    for (Want w : {Want{kClassSmiLid, 1, 0}, Want{kClassSmiDr, 1, 0}, Want{kClassSa, 2, 1}, Want{kClassPerf, 1, 0}}) {
      int id = umad_register(port_id_, w.cls, w.version, w.rmpp, nullptr);
      if (id < 0) return make_error(fmt::format("{}: umad_register class 0x{:02x}: {}", where_, w.cls, strerror(-id)));
      agents_[w.cls] = id;
    }
    return {};
  }

  Status send(const MadRequest& r, uint32_t tid, std::chrono::milliseconds timeout) override {
    if (r.mad.size() != kMadSize) return make_error(fmt::format("request of {} bytes", r.mad.size()));
    const uint8_t cls = r.mad[1];
    auto agent = agents_.find(cls);
    if (agent == agents_.end()) return make_error(fmt::format("no agent for class 0x{:02x}", cls));
    sbuf_.assign(umad_size() + kMadSize, 0);
    auto* mad = static_cast<uint8_t*>(umad_get_mad(sbuf_.data()));
    std::memcpy(mad, r.mad.data(), kMadSize);
    put_be({mad, kMadSize}, 12, 4, tid);
    if (r.to.directed()) {
      umad_set_addr(sbuf_.data(), 0xffff, 0, 0, 0);
    } else if (cls == kClassSmiLid) {
      umad_set_addr(sbuf_.data(), r.to.lid, 0, 0, 0);
    } else {
      umad_set_addr(sbuf_.data(), r.to.lid, 1, 0, static_cast<int>(kQp1Qkey));
    }
    // The kernel's timeout is a safety net; retries are ours so each attempt gets a fresh TID.
    int rc = umad_send(port_id_, agent->second, sbuf_.data(), static_cast<int>(kMadSize),
                       static_cast<int>(timeout.count()), 0);
    if (rc < 0) return make_error(fmt::format("umad_send: {}", strerror(-rc)));
    return {};
  }

  std::optional<Received> receive(std::chrono::milliseconds wait) override {
    if (rbuf_.size() < umad_size() + kMadSize) rbuf_.resize(umad_size() + 64 * 1024);
    int length = static_cast<int>(rbuf_.size() - umad_size());
    int agent = umad_recv(port_id_, rbuf_.data(), &length, static_cast<int>(wait.count()));
    if (agent == -ENOSPC && length > 0) {            // an RMPP reply bigger than the buffer: grow, read again
      rbuf_.resize(umad_size() + static_cast<size_t>(length) + kMadSize);
      length = static_cast<int>(rbuf_.size() - umad_size());
      agent = umad_recv(port_id_, rbuf_.data(), &length, 0);
    }
    if (agent < 0) {
      if (agent != -ETIMEDOUT && agent != -EWOULDBLOCK && agent != -EINTR)
        log::debug("{}: umad_recv: {}", where_, strerror(-agent));
      return std::nullopt;
    }
    if (length < 24) return std::nullopt;
    const auto* mad = static_cast<const uint8_t*>(umad_get_mad(rbuf_.data()));
    Received got;
    got.tid = static_cast<uint32_t>(get_be({mad, static_cast<size_t>(length)}, 12, 4));
    const int status = umad_status(rbuf_.data());
    if (status == ETIMEDOUT) {
      got.lost = true;
    } else if (status != 0) {
      got.mad = make_error(fmt::format("umad status {} ({})", status, strerror(status)));
    } else {
      got.mad = Bytes(mad, mad + length);
    }
    return got;
  }

 private:
  int port_id_;
  std::string where_;
  std::map<uint8_t, int> agents_;
  std::vector<uint8_t> sbuf_, rbuf_;
};

std::string link_layer_name(const char* ll) {
  std::string s = ll;
  if (s == "IB" || s.empty()) return "InfiniBand";
  return s;
}

class RealUmadDevices final : public UmadDevices {
 public:
  Result<std::vector<LocalPort>> ports() override {
    if (umad_init() < 0) return make_error("umad_init failed (is ib_umad loaded?)");
    char names[32][UMAD_CA_NAME_LEN];
    int n = umad_get_cas_names(names, 32);
    if (n < 0) return make_error(fmt::format("umad_get_cas_names: {}", strerror(-n)));
    std::vector<LocalPort> out;
    for (int i = 0; i < n; ++i) {
      umad_ca_t ca{};
      int rc = umad_get_ca(names[i], &ca);
      if (rc < 0) {
        // ENOENT: gone since it was listed, or libibumad's default name ("mthca0") on a
        // host with no RDMA device at all; either way, nothing to probe.
        if (rc == -ENOENT) log::debug("umad_get_ca {}: {}", names[i], strerror(-rc));
        else log::warn("umad_get_ca {}: {}", names[i], strerror(-rc));
        continue;
      }
      for (int p = 0; p < UMAD_CA_MAX_PORTS; ++p) {
        const umad_port_t* up = ca.ports[p];
        if (!up) continue;
        LocalPort lp;
        lp.device = names[i];
        lp.port = up->portnum;
        lp.state = static_cast<int>(up->state);
        lp.phys_state = static_cast<int>(up->phys_state);
        lp.link_layer = link_layer_name(up->link_layer);
        lp.lid = static_cast<uint16_t>(up->base_lid);
        lp.sm_lid = static_cast<uint16_t>(up->sm_lid);
        lp.port_guid = be64toh(up->port_guid);
        lp.node_guid = be64toh(ca.node_guid);
        lp.gid_prefix = be64toh(up->gid_prefix);
        lp.rate_gbps = up->rate;
        // Switch port 0 is management only; a switch's umad view is not a host port.
        if (ca.node_type == 2 && lp.port == 0) continue;
        out.push_back(lp);
      }
      umad_release_ca(&ca);
    }
    return out;
  }

  Result<std::unique_ptr<MadTransport>> open(const std::string& device, int port) override {
    const std::string where = fmt::format("{} port {}", device, port);
    int id = umad_open_port(device.c_str(), port);
    if (id < 0) return make_error(fmt::format("{}: umad_open_port: {}", where, strerror(-id)));
    auto umad_port = std::make_unique<UmadPort>(id, where);
    if (auto ok = umad_port->register_agents(); !ok) return ok.error();   // the destructor unregisters what was
    return make_pipelined_transport(std::move(umad_port));
  }
};

}  // namespace

std::unique_ptr<UmadDevices> make_umad_devices() { return std::make_unique<RealUmadDevices>(); }

}  // namespace weft::ib
