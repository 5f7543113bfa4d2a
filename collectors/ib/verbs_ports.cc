#include "collectors/ib/verbs_ports.h"

#include <dirent.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <endian.h>
#include <fmt/format.h>

#include "collectors/ib/attributes.h"
#include "collectors/ib/verbs_library.h"

namespace weft::ib {

namespace {

// ibv_port_attr.active_speed uses the PortInfo encodings, with the extended speeds
// folded in as 16 FDR10(=QDR here), 32 FDR, 64 EDR, 128 HDR, 256 NDR (rdma-core).
void speed_of(const ibv_port_attr& a, PortReport& r) {
  uint8_t speed = 0, ext = 0;
  switch (a.active_speed) {
    case 1: case 2: case 4: speed = static_cast<uint8_t>(a.active_speed); break;
    case 8: speed = 4; break;      // FDR10 runs at QDR lane rate
    case 16: ext = 1; break;
    case 32: ext = 2; break;
    case 64: ext = 4; break;
    case 128: ext = 8; break;
    default: break;
  }
  r.width = width_name(a.active_width);
  if (a.link_layer == IBV_LINK_LAYER_ETHERNET) {
    const double g = width_lanes(a.active_width) * lane_gbps(speed, ext);
    r.speed = g > 0 ? fmt::format("{}GbE", g) : "";
  } else {
    r.speed = speed_name(speed, ext);
  }
  r.rate_gbps = width_lanes(a.active_width) * lane_gbps(speed, ext);
}

}  // namespace

Result<std::vector<PortReport>> verbs_ports() {
  auto lib = VerbsLibrary::open();
  if (!lib) return lib.error();
  const VerbsLibrary& v = *lib;
  int n = 0;
  ibv_device** list = v.get_device_list(&n);
  if (!list) return make_error(fmt::format("ibv_get_device_list: {}", strerror(errno)));
  std::vector<PortReport> out;
  for (int i = 0; i < n; ++i) {
    const std::string name = v.get_device_name(list[i]);
    ibv_context* ctx = v.open_device(list[i]);
    if (!ctx) {
      PortReport r;
      r.device = name;
      r.backend = "verbs";
      r.errors.push_back(fmt::format("ibv_open_device {}: {}", name, strerror(errno)));
      out.push_back(r);
      continue;
    }
    ibv_device_attr dev{};
    if (int rc = v.query_device(ctx, &dev); rc != 0) {
      PortReport r;
      r.device = name;
      r.backend = "verbs";
      r.errors.push_back(fmt::format("ibv_query_device {}: {}", name, strerror(rc)));
      out.push_back(r);
      v.close_device(ctx);
      continue;
    }
    for (uint8_t p = 1; p <= dev.phys_port_cnt; ++p) {
      PortReport r;
      r.device = name;
      r.port = p;
      r.backend = "verbs";
      r.node_guid = guid_string(be64toh(dev.node_guid));
      ibv_port_attr a{};
      if (int rc = v.query_port(ctx, p, &a); rc != 0) {
        r.errors.push_back(fmt::format("ibv_query_port {} {}: {}", name, p, strerror(rc)));
        out.push_back(r);
        continue;
      }
      r.state = port_state_name(static_cast<uint8_t>(a.state));
      r.phys_state = phys_state_name(a.phys_state);
      r.link_layer = a.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
      r.lid = a.lid;
      r.sm_lid = a.sm_lid;
      speed_of(a, r);
      ibv_gid gid{};
      if (v.query_gid(ctx, p, 0, &gid) == 0) {
        r.subnet_prefix = guid_string(be64toh(gid.global.subnet_prefix));
        r.port_guid = guid_string(be64toh(gid.global.interface_id));
      }
      const std::string why = r.link_layer == "Ethernet"
                                  ? "RoCE port: no IB subnet manager or switches to ask"
                                  : "verbs backend cannot send SMPs, SA or PerfMgt queries (use --ib-backend umad or auto)";
      r.neighbor_reason = r.uplinks_reason = r.sm_reason = r.fabric_reason = r.counters_reason = why;
      out.push_back(r);
    }
    v.close_device(ctx);
  }
  v.free_device_list(list);
  return out;
}

std::vector<std::string> verbs_device_names() {
  const std::string root = "/sys/class/infiniband_verbs";
  std::vector<std::string> out;
  DIR* dir = opendir(root.c_str());
  if (!dir) return out;
  while (const dirent* e = readdir(dir)) {
    if (std::strncmp(e->d_name, "uverbs", 6) != 0) continue;
    std::ifstream in(root + "/" + e->d_name + "/ibdev");
    std::string name;
    if (in >> name) out.push_back(name);
  }
  closedir(dir);
  return out;
}

}  // namespace weft::ib
