#include "tests/ib/fake_sysfs.h"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

namespace weft::ib::fake {

namespace fs = std::filesystem;

namespace {

void write(const fs::path& file, const std::string& text) {
  std::ofstream out(file);
  out << text << "\n";
}

}  // namespace

std::string Sysfs::function(const std::string& host_bridge, const std::vector<std::string>& bridges,
                            const std::string& address, const std::string& cls, const std::string& vendor, int numa) {
  fs::path dir = fs::path(root_) / "devices" / host_bridge;
  for (const auto& b : bridges) dir /= b;
  dir /= address;
  fs::create_directories(dir);
  write(dir / "class", cls);
  write(dir / "vendor", vendor);
  write(dir / "numa_node", std::to_string(numa));
  const fs::path bus = fs::path(root_) / "bus" / "pci" / "devices";
  fs::create_directories(bus);
  fs::create_symlink(dir, bus / address);
  return dir.string();
}

void Sysfs::gpu(const std::string& host_bridge, const std::vector<std::string>& bridges, const std::string& address,
                int numa) {
  function(host_bridge, bridges, address, "0x030200", "0x10de", numa);
}

void Sysfs::hca(const std::string& device, const std::string& host_bridge, const std::vector<std::string>& bridges,
                const std::string& address, int numa) {
  const std::string dir = function(host_bridge, bridges, address, "0x020700", "0x15b3", numa);
  const fs::path ib = fs::path(root_) / "class" / "infiniband" / device;
  fs::create_directories(ib);
  fs::create_symlink(dir, ib / "device");
}

void dgx_like(Sysfs& s, int compute, int storage) {
  const int switches = (compute + 1) / 2;
  for (int sw = 0; sw < switches; ++sw) {
    const int bus = 0x10 * (sw + 1);
    const std::string host_bridge = fmt::format("pci0000:{:02x}", bus);
    const int numa = sw * 2 / std::max(switches, 1);
    const std::vector<std::string> up = {fmt::format("0000:{:02x}:01.0", bus), fmt::format("0000:{:02x}:00.0", bus + 1)};
    for (int k = 0; k < 4; ++k) {
      auto below = up;
      below.push_back(fmt::format("0000:{:02x}:{:02x}.0", bus + 2, k));
      const std::string address = fmt::format("0000:{:02x}:00.0", bus + 3 + k);
      if (k < 2) s.gpu(host_bridge, below, address, numa);
      else if (2 * sw + (k - 2) < compute) s.hca(fmt::format("mlx5_{}", 2 * sw + (k - 2)), host_bridge, below, address, numa);
    }
  }
  for (int i = 0; i < storage; ++i) {
    const int bus = 0xc0 + 0x10 * i;
    s.hca(fmt::format("mlx5_{}", compute + i), fmt::format("pci0000:{:02x}", bus), {fmt::format("0000:{:02x}:01.0", bus)},
          fmt::format("0000:{:02x}:00.0", bus + 1), i % 2);
  }
}

}  // namespace weft::ib::fake
