// The MAD transport under the probe: sends a batch of MADs from one local port with
// several outstanding at once, each with a timeout and bounded retries, under an
// overall deadline. The real one is on libibumad (umad_transport.h); unit tests use fakes
// that answer with recorded or malformed replies.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectors/ib/mad.h"
#include "common/result.h"

namespace weft::ib {

using Clock = std::chrono::steady_clock;

struct MadPolicy {
  std::chrono::milliseconds timeout{250};  // per attempt
  int retries = 2;                         // attempts after the first
  Clock::time_point deadline = Clock::time_point::max();
  size_t window = 32;                      // requests outstanding at once
};

class MadTransport {
 public:
  virtual ~MadTransport() = default;
  // One result per request, in order: the raw reply MAD, or an error (timeout after N
  // attempts, deadline, send failure). Replies are matched to requests by TID.
  virtual std::vector<Result<Bytes>> exchange(std::span<const MadRequest> requests, const MadPolicy& policy) = 0;
};

// The datagram side under a pipelined transport: one MAD out, one reply in. The real one
// is a umad port; unit tests fake it to drop, delay or garble replies.
class MadPort {
 public:
  struct Received {
    uint32_t tid = 0;          // low 32 bits of the reply's TID
    Result<Bytes> mad = Bytes{};   // the reply MAD, or an error status for that TID
    bool lost = false;         // the port gave up on this TID itself (e.g. kernel timeout)
  };
  virtual ~MadPort() = default;
  // Sends r.mad with its TID low 32 bits set to tid; timeout is advisory for the port.
  virtual Status send(const MadRequest& r, uint32_t tid, std::chrono::milliseconds timeout) = 0;
  // Waits up to `wait` for one reply; nullopt when none came.
  virtual std::optional<Received> receive(std::chrono::milliseconds wait) = 0;
};

// MadTransport over a MadPort: up to policy.window MADs in flight, each resent with a fresh
// TID after policy.timeout up to policy.retries times, nothing past policy.deadline; a late
// reply to an earlier attempt is ignored.
std::unique_ptr<MadTransport> make_pipelined_transport(std::unique_ptr<MadPort> port);

// exchange() plus check_reply(): a reply that does not answer its request (class, method,
// attribute, status) becomes an error prefixed with the request's `what`.
std::vector<Result<Bytes>> exchange_checked(MadTransport& transport, std::span<const MadRequest> requests,
                                            const MadPolicy& policy);

// One local port as the host sees it (umad sysfs view), before any MAD is sent.
struct LocalPort {
  std::string device;
  int port = 0;
  int state = 0;               // 1 DOWN .. 4 ACTIVE
  int phys_state = 0;          // 5 LINKUP
  std::string link_layer;      // "InfiniBand" | "Ethernet"
  uint16_t lid = 0;
  uint16_t sm_lid = 0;
  uint64_t port_guid = 0;
  uint64_t node_guid = 0;
  uint64_t gid_prefix = 0;
  double rate_gbps = 0;
};

// The machine's umad view: its ports, and a transport per port.
class UmadDevices {
 public:
  virtual ~UmadDevices() = default;
  virtual Result<std::vector<LocalPort>> ports() = 0;
  virtual Result<std::unique_ptr<MadTransport>> open(const std::string& device, int port) = 0;
};

}  // namespace weft::ib
