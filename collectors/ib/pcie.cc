#include "collectors/ib/pcie.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace weft::ib {

namespace fs = std::filesystem;

namespace {

std::string read_word(const fs::path& file) {
  std::ifstream in(file);
  std::string word;
  in >> word;
  return word;
}

bool is_gpu(const fs::path& dir) {
  const std::string cls = read_word(dir / "class");        // "0x030200"
  const std::string vendor = read_word(dir / "vendor");    // "0x10de"
  if (cls.rfind("0x0302", 0) == 0) return true;
  return cls.rfind("0x0300", 0) == 0 && (vendor == "0x10de" || vendor == "0x1002");
}

}  // namespace

const char* distance_name(PcieDistance d) {
  switch (d) {
    case PcieDistance::Pix: return "PIX";
    case PcieDistance::Pxb: return "PXB";
    case PcieDistance::Phb: return "PHB";
    case PcieDistance::Sys: return "SYS";
  }
  return "SYS";
}

PcieDistance pcie_distance(const PciPlace& a, const PciPlace& b) {
  if (a.root != b.root) {
    const bool same_numa = a.numa_node >= 0 && a.numa_node == b.numa_node;
    return same_numa ? PcieDistance::Phb : PcieDistance::Sys;
  }
  size_t common = 0;
  while (common < a.bridges.size() && common < b.bridges.size() && a.bridges[common] == b.bridges[common]) ++common;
  if (common == 0) return PcieDistance::Phb;   // only the host bridge is shared
  // Below the lowest shared bridge: one downstream port on each side is one switch.
  const size_t below = (a.bridges.size() - common) + (b.bridges.size() - common);
  return below <= 2 ? PcieDistance::Pix : PcieDistance::Pxb;
}

Result<PciPlace> SysfsPci::place(const std::string& device_dir) const {
  std::error_code ec;
  const fs::path real = fs::canonical(device_dir, ec);
  if (ec) return make_error(device_dir + ": " + ec.message());
  PciPlace p;
  bool after_devices = false, in_pci = false;   // .../devices/pciDDDD:BB/<bridges>/<function>
  for (const auto& part : real) {
    const std::string s = part.string();
    if (in_pci) {
      p.bridges.push_back(s);
    } else if (after_devices && s.rfind("pci", 0) == 0) {
      p.root = s;
      in_pci = true;
    } else {
      after_devices = s == "devices";
    }
  }
  if (!in_pci || p.bridges.empty()) return make_error(device_dir + ": not a PCI device (" + real.string() + ")");
  p.address = p.bridges.back();
  p.bridges.pop_back();
  const std::string numa = read_word(real / "numa_node");
  if (!numa.empty()) {
    try {
      p.numa_node = std::stoi(numa);
    } catch (const std::exception&) {
      p.numa_node = -1;
    }
  }
  return p;
}

Result<PciPlace> SysfsPci::ib_device(const std::string& device) const {
  return place((fs::path(root_) / "class" / "infiniband" / device / "device").string());
}

std::vector<PciPlace> SysfsPci::gpus() const {
  std::vector<PciPlace> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(fs::path(root_) / "bus" / "pci" / "devices", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (!is_gpu(it->path())) continue;
    if (auto p = place(it->path().string())) out.push_back(std::move(p.value()));
  }
  std::sort(out.begin(), out.end(), [](const PciPlace& a, const PciPlace& b) { return a.address < b.address; });
  return out;
}

}  // namespace weft::ib
