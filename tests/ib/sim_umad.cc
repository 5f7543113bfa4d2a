#include "tests/ib/sim_umad.h"

#include <arpa/inet.h>
#include <endian.h>
#include <infiniband/mad.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <random>
#include <thread>

#include <fmt/format.h>

namespace weft::ib::sim {

namespace {

// ibsim's wire structs (include/ibsim.h of ibsim), in host byte order unless noted.
constexpr uint32_t kMagic = 0xdeadbeef;
enum CtlType : uint32_t { kCtlError = 0, kCtlConnect = 1, kCtlDisconnect = 2, kCtlGetNodeInfo = 7, kCtlGetPortInfo = 8 };

struct Ctl {
  uint32_t magic = kMagic;
  uint32_t client = 0;
  uint32_t type = 0;
  uint32_t len = 0;
  uint8_t data[64] = {};
};

struct ClientInfo {
  uint32_t id = 0;       // our socket suffix in; ibsim's client index out
  uint32_t qp = 0;
  uint32_t issm = 0;
  char nodeid[32] = {};
};

struct Request {
  uint32_t dlid = 0;     // network order, 16 bits
  uint32_t slid = 0;
  uint32_t dqp = 0;      // network order
  uint32_t sqp = 0;
  uint32_t status = 0;   // network order
  uint64_t length = 0;   // big-endian
  uint8_t mad[256] = {};
};

// ibsim's names live in the abstract namespace: "\0<sockname>:<suffix>\0" (its length
// counts the terminating NUL, as ibsim and umad2sim compute it).
socklen_t abstract_name(sockaddr_un& a, const std::string& name) {
  std::memset(&a, 0, sizeof(a));
  a.sun_family = AF_UNIX;
  const size_t n = std::min(name.size(), sizeof(a.sun_path) - 2);
  std::memcpy(a.sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 2 + n);
}

// One attachment to an ibsim node: the control socket and the data socket.
class Client {
 public:
  // id: the suffix of our socket names, unique among this ibsim's live clients.
  static Result<std::unique_ptr<Client>> attach(const Hca& hca, int id) {
    auto c = std::unique_ptr<Client>(new Client());
    c->ctl_ = socket(AF_UNIX, SOCK_DGRAM, 0);
    c->data_ = socket(AF_UNIX, SOCK_DGRAM, 0);
    if (c->ctl_ < 0 || c->data_ < 0) return make_error("socket: " + std::string(strerror(errno)));
    sockaddr_un a{};
    if (bind(c->ctl_, reinterpret_cast<sockaddr*>(&a), abstract_name(a, fmt::format("{}:ctl{}", hca.sockname, id))) < 0 ||
        connect(c->ctl_, reinterpret_cast<sockaddr*>(&a), abstract_name(a, hca.sockname + ":ctl")) < 0)
      return make_error(hca.sockname + ": control socket: " + strerror(errno));
    if (bind(c->data_, reinterpret_cast<sockaddr*>(&a), abstract_name(a, fmt::format("{}:in{}", hca.sockname, id))) < 0)
      return make_error(hca.sockname + ": data socket: " + strerror(errno));
    ClientInfo info;
    info.id = static_cast<uint32_t>(id);
    std::strncpy(info.nodeid, hca.node.c_str(), sizeof(info.nodeid) - 1);
    Ctl ctl;
    ctl.type = kCtlConnect;
    ctl.len = sizeof(info);
    std::memcpy(ctl.data, &info, sizeof(info));
    if (auto ok = c->call(ctl); !ok) return wrap(ok.error(), hca.node + ": connect");
    std::memcpy(&info, ctl.data, sizeof(info));
    c->client_ = info.id;
    c->connected_ = true;
    if (connect(c->data_, reinterpret_cast<sockaddr*>(&a), abstract_name(a, fmt::format("{}:out{}", hca.sockname, c->client_))) < 0)
      return make_error(hca.node + ": data socket: " + strerror(errno));
    return c;
  }
  ~Client() {
    if (connected_) {
      Ctl ctl;
      ctl.type = kCtlDisconnect;
      (void)call(ctl);
    }
    if (ctl_ >= 0) close(ctl_);
    if (data_ >= 0) close(data_);
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // NodeInfo or PortInfo attribute data (64 bytes) of the node's attached port.
  Result<std::vector<uint8_t>> get(CtlType type) {
    Ctl ctl;
    ctl.type = type;
    ctl.len = sizeof(ctl.data);
    if (auto ok = call(ctl); !ok) return ok.error();
    return std::vector<uint8_t>(ctl.data, ctl.data + sizeof(ctl.data));
  }
  int data_fd() const { return data_; }

 private:
  Client() = default;
  Status call(Ctl& ctl) {
    ctl.magic = kMagic;
    ctl.client = client_;
    if (write(ctl_, &ctl, sizeof(ctl)) != static_cast<ssize_t>(sizeof(ctl))) return make_error(strerror(errno));
    pollfd p{ctl_, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return make_error("ibsim did not answer");
    if (read(ctl_, &ctl, sizeof(ctl)) != static_cast<ssize_t>(sizeof(ctl))) return make_error(strerror(errno));
    if (ctl.type == kCtlError) return make_error("ibsim refused");
    return {};
  }
  int ctl_ = -1, data_ = -1;
  uint32_t client_ = 0;
  bool connected_ = false;
};

class Port final : public MadPort {
 public:
  Port(std::unique_ptr<Client> client, std::shared_ptr<std::atomic<int>> sent)
      : client_(std::move(client)), sent_(std::move(sent)) {}
  Status send(const MadRequest& r, uint32_t tid, std::chrono::milliseconds) override {
    if (r.mad.size() != kMadSize) return make_error(fmt::format("request of {} bytes", r.mad.size()));
    Request q;
    std::memcpy(q.mad, r.mad.data(), kMadSize);
    put_be({q.mad, kMadSize}, 12, 4, tid);
    const bool smi = r.mad[1] == kClassSmiLid || r.mad[1] == kClassSmiDr;
    q.dlid = r.to.directed() ? 0xffff : htons(r.to.lid);
    q.slid = q.dlid == 0xffff ? 0xffff : 0;   // 0: ibsim fills in our LID
    q.dqp = q.sqp = htonl(smi ? 0 : 1);
    q.length = htobe64(kMadSize);
    ++*sent_;
    if (write(client_->data_fd(), &q, sizeof(q)) != static_cast<ssize_t>(sizeof(q)))
      return make_error(std::string("ibsim write: ") + strerror(errno));
    return {};
  }
  std::optional<Received> receive(std::chrono::milliseconds wait) override {
    pollfd p{client_->data_fd(), POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return std::nullopt;
    Request q;
    if (read(client_->data_fd(), &q, sizeof(q)) != static_cast<ssize_t>(sizeof(q))) return std::nullopt;
    Received got;
    got.tid = static_cast<uint32_t>(get_be({q.mad, kMadSize}, 12, 4));
    const uint32_t status = ntohl(q.status);
    if (status != 0) got.mad = make_error(fmt::format("ibsim status {} ({})", status, strerror(static_cast<int>(status))));
    else got.mad = Bytes(q.mad, q.mad + std::min<uint64_t>(be64toh(q.length), kMadSize));
    return got;
  }

 private:
  std::unique_ptr<Client> client_;
  std::shared_ptr<std::atomic<int>> sent_;
};

}  // namespace

Devices::Devices(std::vector<Hca> hcas) : hcas_(std::move(hcas)) {
  // Socket names are per process in ibsim's scheme (pid); several Devices in one process
  // (or several test processes) need their own range.
  next_ = static_cast<int>(std::random_device{}() % 20000) * 100000;
}

int Devices::next_id() { return next_ + (serial_.fetch_add(1) % 100000); }

Result<std::vector<LocalPort>> Devices::ports() {
  std::vector<LocalPort> out;
  for (const auto& h : hcas_) {
    auto c = Client::attach(h, next_id());
    if (!c) return wrap(c.error(), h.device);
    auto ni = (*c)->get(kCtlGetNodeInfo);
    auto pi = (*c)->get(kCtlGetPortInfo);
    if (!ni || !pi) return make_error(h.device + ": " + (!ni ? ni.message() : pi.message()));
    auto* n = ni->data();
    auto* p = pi->data();
    LocalPort lp;
    lp.device = h.device;
    lp.port = 1;
    lp.state = static_cast<int>(mad_get_field(p, 0, IB_PORT_STATE_F));
    lp.phys_state = static_cast<int>(mad_get_field(p, 0, IB_PORT_PHYS_STATE_F));
    lp.link_layer = "InfiniBand";
    lp.lid = static_cast<uint16_t>(mad_get_field(p, 0, IB_PORT_LID_F));
    lp.sm_lid = static_cast<uint16_t>(mad_get_field(p, 0, IB_PORT_SMLID_F));
    lp.gid_prefix = mad_get_field64(p, 0, IB_PORT_GID_PREFIX_F);
    lp.node_guid = mad_get_field64(n, 0, IB_NODE_GUID_F);
    lp.port_guid = mad_get_field64(n, 0, IB_NODE_PORT_GUID_F);
    out.push_back(lp);
  }
  return out;
}

Result<std::unique_ptr<MadTransport>> Devices::open(const std::string& device, int port) {
  for (const auto& h : hcas_) {
    if (h.device != device || port != 1) continue;
    // ibsim serves 10 clients (its SM included): a host with more HCAs on one subnet than
    // that, all probed at once, waits for a slot as the first ports finish.
    auto c = Client::attach(h, next_id());
    for (int tries = 0; !c && c.message().find("ibsim refused") != std::string::npos && tries < 200; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      c = Client::attach(h, next_id());
    }
    if (!c) return wrap(c.error(), device);
    return make_pipelined_transport(std::make_unique<Port>(std::move(c.value()), sent_));
  }
  return make_error(fmt::format("{} port {}: no such port", device, port));
}

}  // namespace weft::ib::sim
