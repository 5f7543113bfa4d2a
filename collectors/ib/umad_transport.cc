#include "collectors/ib/umad_transport.h"

#include <cerrno>
#include <cstring>
#include <map>

#include <endian.h>
#include <fmt/format.h>
#include <infiniband/umad.h>
#include <spdlog/spdlog.h>

namespace weft::ib {

namespace {

constexpr uint32_t kQp1Qkey = 0x80010000;

class UmadTransport final : public MadTransport {
 public:
  UmadTransport(int port_id, std::string where) : port_id_(port_id), where_(std::move(where)) {}
  ~UmadTransport() override { umad_close_port(port_id_); }

  Status register_agents() {
    struct Want { uint8_t cls, version, rmpp; };
    for (Want w : {Want{kClassSmiLid, 1, 0}, Want{kClassSmiDr, 1, 0}, Want{kClassSa, 2, 1}, Want{kClassPerf, 1, 0}}) {
      int id = umad_register(port_id_, w.cls, w.version, w.rmpp, nullptr);
      if (id < 0) return make_error(fmt::format("{}: umad_register class 0x{:02x}: {}", where_, w.cls, strerror(-id)));
      agents_[w.cls] = id;
    }
    return {};
  }

  std::vector<Result<Bytes>> exchange(std::span<const MadRequest> requests, const MadPolicy& policy) override {
    std::vector<Result<Bytes>> out(requests.size(), Result<Bytes>(make_error("not sent")));
    struct Flight { size_t index; int attempts; Clock::time_point sent; };
    std::map<uint32_t, Flight> inflight;   // TID low 32 bits -> request
    size_t next = 0;
    const size_t window = std::max<size_t>(1, policy.window);

    auto send = [&](size_t index, int attempts) {
      uint32_t tid = ++tid_;
      if (auto ok = send_one(requests[index], tid, policy.timeout); !ok) {
        out[index] = ok.error();
        return;
      }
      inflight[tid] = Flight{index, attempts, Clock::now()};
    };

    while (next < requests.size() || !inflight.empty()) {
      while (next < requests.size() && inflight.size() < window) send(next++, 1);
      if (inflight.empty()) continue;
      const auto now = Clock::now();
      if (now >= policy.deadline) {
        for (auto& [tid, f] : inflight) out[f.index] = make_error("probe deadline reached before a reply");
        for (; next < requests.size(); ++next) out[next] = make_error("probe deadline reached before sending");
        break;
      }
      // Resend what timed out (a fresh TID, so a late reply to the old one is ignored).
      auto earliest = Clock::time_point::max();
      for (auto it = inflight.begin(); it != inflight.end();) {
        const auto expiry = it->second.sent + policy.timeout;
        if (expiry <= now) {
          Flight f = it->second;
          it = inflight.erase(it);
          if (f.attempts > policy.retries) {
            out[f.index] = make_error(fmt::format("no reply after {} attempts of {} ms", f.attempts, policy.timeout.count()));
          } else {
            send(f.index, f.attempts + 1);
          }
          continue;
        }
        earliest = std::min(earliest, expiry);
        ++it;
      }
      if (inflight.empty()) continue;
      earliest = std::min(earliest, policy.deadline);
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(earliest - Clock::now()).count() + 1;
      receive_one(std::max<long>(1, wait), inflight, requests, out);
    }
    return out;
  }

 private:
  template <class Inflight>
  void receive_one(long wait_ms, Inflight& inflight, std::span<const MadRequest> requests,
                   std::vector<Result<Bytes>>& out) {
    if (rbuf_.size() < umad_size() + kMadSize) rbuf_.resize(umad_size() + 64 * 1024);
    int length = static_cast<int>(rbuf_.size() - umad_size());
    int agent = umad_recv(port_id_, rbuf_.data(), &length, static_cast<int>(wait_ms));
    if (agent == -ENOSPC && length > 0) {            // an RMPP reply bigger than the buffer: grow, read again
      rbuf_.resize(umad_size() + static_cast<size_t>(length) + kMadSize);
      length = static_cast<int>(rbuf_.size() - umad_size());
      agent = umad_recv(port_id_, rbuf_.data(), &length, 0);
    }
    if (agent < 0) {
      if (agent != -ETIMEDOUT && agent != -EWOULDBLOCK && agent != -EINTR)
        spdlog::debug("{}: umad_recv: {}", where_, strerror(-agent));
      return;
    }
    const auto* mad = static_cast<const uint8_t*>(umad_get_mad(rbuf_.data()));
    if (length < 24) return;
    const uint32_t tid = static_cast<uint32_t>(get_be({mad, static_cast<size_t>(length)}, 12, 4));
    auto it = inflight.find(tid);
    if (it == inflight.end()) return;   // late reply to an earlier attempt, or not ours
    const size_t index = it->second.index;
    const int status = umad_status(rbuf_.data());
    if (status != 0) {
      if (status == ETIMEDOUT) {          // the kernel's own timeout: count it as a lost attempt
        it->second.sent = Clock::time_point::min();
        return;
      }
      out[index] = make_error(fmt::format("umad status {} ({})", status, strerror(status)));
      inflight.erase(it);
      return;
    }
    (void)requests;
    out[index] = Bytes(mad, mad + length);
    inflight.erase(it);
  }

  Status send_one(const MadRequest& r, uint32_t tid, std::chrono::milliseconds timeout) {
    if (r.mad.size() != kMadSize) return make_error(fmt::format("request of {} bytes", r.mad.size()));
    const uint8_t cls = r.mad[1];
    auto agent = agents_.find(cls);
    if (agent == agents_.end()) return make_error(fmt::format("no agent for class 0x{:02x}", cls));
    std::vector<uint8_t> buf(umad_size() + kMadSize, 0);
    auto* mad = static_cast<uint8_t*>(umad_get_mad(buf.data()));
    std::memcpy(mad, r.mad.data(), kMadSize);
    put_be({mad, kMadSize}, 12, 4, tid);
    if (r.to.directed()) {
      umad_set_addr(buf.data(), 0xffff, 0, 0, 0);
    } else if (cls == kClassSmiLid) {
      umad_set_addr(buf.data(), r.to.lid, 0, 0, 0);
    } else {
      umad_set_addr(buf.data(), r.to.lid, 1, 0, static_cast<int>(kQp1Qkey));
    }
    // The kernel's timeout is a safety net; retries are ours so each attempt gets a fresh TID.
    int rc = umad_send(port_id_, agent->second, buf.data(), static_cast<int>(kMadSize),
                       static_cast<int>(timeout.count()), 0);
    if (rc < 0) return make_error(fmt::format("umad_send: {}", strerror(-rc)));
    return {};
  }

  int port_id_;
  std::string where_;
  std::map<uint8_t, int> agents_;
  uint32_t tid_ = 0x5745;   // arbitrary start; the kernel owns the high 32 bits
  std::vector<uint8_t> rbuf_;
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
        spdlog::warn("umad_get_ca {}: {}", names[i], strerror(-rc));
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
    auto t = std::make_unique<UmadTransport>(id, where);
    if (auto ok = t->register_agents(); !ok) return ok.error();
    return std::unique_ptr<MadTransport>(std::move(t));
  }
};

}  // namespace

std::unique_ptr<UmadDevices> make_umad_devices() { return std::make_unique<RealUmadDevices>(); }

}  // namespace weft::ib
