// A fake sysfs PCIe tree for the role and GPU-distance tests: PCI functions under
// devices/pciDDDD:BB/<bridges>/<address> with class, vendor and numa_node, the
// bus/pci/devices links, and class/infiniband/<device>/device links to the HCAs.
#pragma once

#include <string>
#include <vector>

namespace weft::ib::fake {

class Sysfs {
 public:
  explicit Sysfs(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  // A GPU (3D controller, NVIDIA) or an HCA (InfiniBand controller, Mellanox) at `address`
  // below `bridges` of host bridge `host_bridge`.
  void gpu(const std::string& host_bridge, const std::vector<std::string>& bridges, const std::string& address, int numa);
  void hca(const std::string& device, const std::string& host_bridge, const std::vector<std::string>& bridges,
           const std::string& address, int numa);

 private:
  std::string function(const std::string& host_bridge, const std::vector<std::string>& bridges,
                       const std::string& address, const std::string& cls, const std::string& vendor, int numa);
  std::string root_;
};

// A DGX-like node: per PCIe switch s (0..compute/2-1, host bridge pci0000:<s>0, NUMA s*2/switches)
// two GPUs and two compute HCAs (mlx5_<2s>, mlx5_<2s+1>) on its downstream ports; then
// `storage` HCAs (mlx5_<compute>...) each on a root port of its own, no GPU near.
void dgx_like(Sysfs& sysfs, int compute, int storage);

}  // namespace weft::ib::fake
