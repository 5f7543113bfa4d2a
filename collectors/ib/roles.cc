// Each port's PCIe distance to the GPUs and its role, compute or storage:
//   1. --compute-devices, when given: listed devices are compute, the rest storage;
//   2. else, when some port has a GPU behind its PCIe switch (PIX/PXB): those ports are
//      compute (InfiniBand ones first; RoCE ones only on a node without such IB ports);
//   3. else the InfiniBand subnets with the most ports are compute, planes (several subnets
//      with as many ports) together; RoCE ports are compute only on a node without IB.
#include <map>
#include <set>

#include <fmt/format.h>

#include "collectors/ib/pcie.h"
#include "collectors/ib/prober.h"

namespace weft::ib {

namespace {

// The first GPU (by address) behind the same PCIe switch as the port, "" when none.
std::string near_gpu(const PortReport& p) {
  for (const auto& [gpu, cls] : p.gpus)
    if (cls == "PIX" || cls == "PXB") return gpu;
  return "";
}

void set_role(PortReport& p, bool compute, std::string why) {
  p.role = compute ? "compute" : "storage";
  p.role_reason = std::move(why);
}

bool by_gpu(IbReport& r) {
  bool ib_near = false, eth_near = false;
  for (const auto& p : r.ports) {
    if (near_gpu(p).empty()) continue;
    (p.infiniband() ? ib_near : eth_near) = true;
  }
  if (!ib_near && !eth_near) return false;
  for (auto& p : r.ports) {
    const std::string gpu = near_gpu(p);
    if (gpu.empty()) {
      set_role(p, false, "no GPU behind its PCIe switch");
    } else if (!p.infiniband() && ib_near) {
      set_role(p, false, "RoCE port on a node whose GPUs have InfiniBand ports beside them");
    } else {
      set_role(p, true, fmt::format("GPU {} behind the same PCIe switch ({})", gpu, p.gpus.at(gpu)));
    }
  }
  return true;
}

// Ports grouped by the subnet they are on: the fabric id when known, else the subnet
// prefix and device (two unknown subnets must not merge).
std::string subnet_key(const PortReport& p) {
  if (!p.fabric.empty()) return p.fabric;
  return "unknown:" + p.subnet_prefix + ":" + p.device;
}

void by_subnet(IbReport& r) {
  std::map<std::string, int> ports;
  for (const auto& p : r.ports)
    if (p.infiniband()) ++ports[subnet_key(p)];
  int most = 0;
  for (const auto& [k, n] : ports) most = std::max(most, n);
  int subnets_with_most = 0;
  for (const auto& [k, n] : ports) subnets_with_most += n == most;
  const std::string compute_why =
      ports.size() == 1         ? "the only InfiniBand subnet"
      : subnets_with_most > 1   ? fmt::format("one of {} InfiniBand subnets with the most ports ({}): planes count together", subnets_with_most, most)
                                : fmt::format("the InfiniBand subnet with the most ports ({})", most);
  for (auto& p : r.ports) {
    if (!p.infiniband()) {
      if (ports.empty()) set_role(p, true, "no InfiniBand ports");
      else set_role(p, false, "RoCE port beside InfiniBand ports");
    } else if (ports[subnet_key(p)] == most) {
      set_role(p, true, compute_why);
    } else {
      set_role(p, false, fmt::format("its InfiniBand subnet has {} port(s), the compute subnet {}", ports[subnet_key(p)], most));
    }
  }
}

}  // namespace

void place_on_pcie(IbReport& r, const std::string& root) {
  if (root.empty()) {
    for (auto& p : r.ports) p.pci_reason = "no sysfs root given";
    return;
  }
  const SysfsPci sysfs(root);
  const auto gpus = sysfs.gpus();
  for (auto& p : r.ports) {
    auto place = sysfs.ib_device(p.device);
    if (!place) {
      p.pci_reason = place.message();
      continue;
    }
    p.pci = place->address;
    for (const auto& gpu : gpus) p.gpus[gpu.address] = distance_name(pcie_distance(*place, gpu));
  }
}

void assign_roles(IbReport& r, const std::vector<std::string>& devices) {
  if (!devices.empty()) {
    const std::set<std::string> want(devices.begin(), devices.end());
    for (auto& p : r.ports) set_role(p, want.count(p.device) > 0, "--compute-devices");
    return;
  }
  if (!by_gpu(r)) by_subnet(r);
}

}  // namespace weft::ib
