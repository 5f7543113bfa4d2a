// What the daemon needs from the machine and from the API, as small interfaces so the
// loop, publisher and metrics can be tested with fakes. The real implementations wrap
// collectors/ib, collectors/load and kube/client.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "node-agent/daemon/snapshot.h"

namespace weft::agent {

class IbSource {
 public:
  virtual ~IbSource() = default;
  // A full probe (ports, SM, first/second-hop switches, counters). May be slow.
  virtual Result<IbSnapshot> probe() = 0;
  // A cheap fingerprint of the local ports' states (read from sysfs/umad), polled
  // often so a link change triggers a probe at once. "" when not available.
  virtual Result<std::string> port_states() { return std::string(); }
  // Before the first probe: the ports of this node's own weft.dev/ib-ports annotation (the
  // last places a previous agent published), so a port down at start keeps its last leaf.
  virtual void recall(const nlohmann::json& /*annotation_ports*/) {}
};

class LoadSource {
 public:
  virtual ~LoadSource() = default;
  // The summary of the window since the last call (the sampler runs continuously).
  virtual Result<LoadSnapshot> sample() = 0;
};

struct PodName {
  std::string ns;
  std::string name;
};

// Names the pods whose cgroups the load collector found (pod_directory.h).
class PodDirectory {
 public:
  virtual ~PodDirectory() = default;
  virtual std::optional<PodName> by_uid(const std::string& uid) const = 0;
  // weft-node-runtime's group name "pod-<namespace>-<name>" without "pod-".
  virtual std::optional<PodName> by_runtime_name(const std::string& runtime_name) const = 0;
};

// The agent's own Node in the API.
class NodeApi {
 public:
  virtual ~NodeApi() = default;
  virtual Result<nlohmann::json> get_node(const std::string& name) = 0;
  // A JSON merge patch (RFC 7386); returns the Node after the patch.
  virtual Result<nlohmann::json> patch_node(const std::string& name, const nlohmann::json& merge_patch) = 0;
};

}  // namespace weft::agent
