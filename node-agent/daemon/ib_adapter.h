// The daemon's IbSource over collectors/ib: one IbProber for the life of the daemon (it
// remembers the fabric id across an SM outage), its report mapped into an IbSnapshot,
// and a cheap port-state fingerprint from libibumad so a link change probes at once.
#pragma once

#include <memory>

#include "collectors/ib/report.h"
#include "collectors/nvlink/nvlink.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

// With an NVLink source (NVML), each probe also reads the GPUs' NVLink clique
// (IbSnapshot::nvlink_domain) and logs once each time NVML's answer changes.
class CollectorIbSource : public IbSource {
 public:
  explicit CollectorIbSource(weft::ib::ProbeOptions options, std::unique_ptr<weft::nvlink::NvlinkSource> nvlink = nullptr)
      : prober_(std::move(options)), nvlink_(std::move(nvlink)) {}
  Result<IbSnapshot> probe() override;
  // "mlx5_0/1=ACTIVE mlx5_1/1=DOWN" from the umad sysfs view; "" without devices.
  Result<std::string> port_states() override;
  void recall(const nlohmann::json& annotation_ports) override;

 private:
  weft::ib::IbProber prober_;
  std::unique_ptr<weft::nvlink::NvlinkSource> nvlink_;
  std::string nvlink_said_;   // what was last logged about NVML
};

// NVML's reading into the snapshot: nvlink_domain set when NVML answered (its domain, or
// "" for none), and the probe JSON's "nvlink" object either way.
void add_nvlink(const weft::nvlink::NvlinkReading& reading, IbSnapshot& snapshot);

// Pure mapping, for tests. A report whose every port failed its own PortInfo query (no
// state known anywhere) is an error naming the ports' errors: the daemon then keeps the
// last good snapshot. A port that is merely DOWN, or an SM that does not answer, is not.
Result<IbSnapshot> snapshot_from_report(const weft::ib::IbReport& report);

// A port's JSON as the weft.dev/ib-ports annotation carries it: the docs/contracts.md port
// fields only, without counters, reasons and per-query errors that move on every probe.
nlohmann::json annotation_port(const nlohmann::json& port_json);

}  // namespace weft::agent
