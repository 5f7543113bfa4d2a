// Where each HCA sits on the PCIe tree relative to the GPUs, read from sysfs and
// classified as NCCL does (closest first):
//   PIX  one PCIe switch between them (both hang off downstream ports of one switch)
//   PXB  several PCIe bridges, without crossing the CPU's host bridge
//   PHB  through a host bridge (different root ports; or another root complex, same NUMA node)
//   SYS  across the CPU interconnect (root complexes on different NUMA nodes, or unknown)
// The tree is read under a root directory ("/sys" on a host, a fake tree in tests, or the
// host's sysfs mounted into a container).
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace weft::ib {

struct PciPlace {
  std::string address;                // "0000:1b:00.0"
  std::string root;                   // the host bridge: "pci0000:00"
  std::vector<std::string> bridges;   // bus addresses from the root port down to the device's parent
  int numa_node = -1;                 // -1: unknown
};

enum class PcieDistance { Pix, Pxb, Phb, Sys };

const char* distance_name(PcieDistance d);
PcieDistance pcie_distance(const PciPlace& a, const PciPlace& b);
// PIX or PXB: a GPU "behind the same PCIe switch" as the HCA.
inline bool shares_switch(PcieDistance d) { return d == PcieDistance::Pix || d == PcieDistance::Pxb; }

class SysfsPci {
 public:
  explicit SysfsPci(std::string root = "/sys") : root_(std::move(root)) {}
  // The PCI function behind <root>/class/infiniband/<device>/device.
  Result<PciPlace> ib_device(const std::string& device) const;
  // Every GPU under <root>/bus/pci/devices: class 0x0302 (3D controller), or a VGA
  // controller (0x0300) from NVIDIA or AMD; sorted by address.
  std::vector<PciPlace> gpus() const;

 private:
  Result<PciPlace> place(const std::string& device_dir) const;
  std::string root_;
};

}  // namespace weft::ib
