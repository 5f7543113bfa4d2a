#include "node-agent/probe_command.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "collectors/ib/report.h"
#include "collectors/load/load.h"

namespace weft::agent {

CLI::App* add_probe_command(CLI::App& app, ProbeOptions& o) {
  auto* p = app.add_subcommand("probe", "Probe this node once (IB fabric position, load) and print the report");
  p->add_option("--output", o.output, "json|text")->check(CLI::IsMember({"json", "text"}))->capture_default_str();
  p->add_option("--ib-backend", o.ib_backend, "auto|umad|verbs")
      ->check(CLI::IsMember({"auto", "umad", "verbs"}))->capture_default_str();
  p->add_option("--load-backend", o.load_backend, "auto|ebpf|procfs")
      ->check(CLI::IsMember({"auto", "ebpf", "procfs"}))->capture_default_str();
  p->add_option("--sample-seconds", o.sample_seconds, "Load window in seconds (0: skip the load part)")
      ->check(CLI::Range(0.0, 3600.0))->capture_default_str();
  p->add_option("--cgroup", o.cgroup, "Also measure this cgroup (v2 path)");
  p->add_option("--compute-devices", o.compute_devices,
                "Comma-separated RDMA devices that make up the compute fabric (default: the ports with a GPU behind "
                "their PCIe switch, else the IB subnets with the most ports)");
  p->add_option("--sysfs-root", o.sysfs_root, "Where sysfs is (the host's, when it is mounted elsewhere)")
      ->capture_default_str();
  p->add_option("--node-name", o.node_name, "Node name in the report (default: $NODE_NAME, else the host name)");
  p->add_option("--mad-timeout-ms", o.mad_timeout_ms, "Per-MAD timeout")->check(CLI::Range(1, 60000))->capture_default_str();
  p->add_option("--mad-retries", o.mad_retries, "Retries per MAD")->check(CLI::Range(0, 20))->capture_default_str();
  p->add_option("--ib-deadline", o.deadline_seconds, "Deadline of the whole IB probe, seconds")
      ->check(CLI::Range(0.01, 600.0))->capture_default_str();
  return p;
}

namespace {

std::string node_name(const ProbeOptions& o) {
  if (!o.node_name.empty()) return o.node_name;
  if (const char* n = std::getenv("NODE_NAME"); n && *n) return n;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) return host;
  return "unknown";
}

std::string text_report(const nlohmann::json& j) {
  std::string s;
  auto str = [](const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  s += fmt::format("node   {}\nrdma   {}\n", str(j["node"]), str(j["rdma"]));
  const auto& ib = j["ib"];
  s += fmt::format("fabric {}{}\n", str(ib["fabric"]), ib.contains("fabric_reason") ? "  (" + str(ib["fabric_reason"]) + ")" : "");
  s += fmt::format("leaf   {}{}\n", str(ib["leaf"]), ib.contains("leaf_reason") ? "  (" + str(ib["leaf_reason"]) + ")" : "");
  s += fmt::format("spine  {}{}\n", str(ib["spine"]), ib.contains("spine_reason") ? "  (" + str(ib["spine_reason"]) + ")" : "");
  for (const auto& p : ib["ports"]) {
    s += fmt::format("port   {}/{} {} {} {} lid {} guid {} {} Gb/s ({} {})\n", str(p["device"]), str(p["port"]),
                     str(p["link_layer"]), str(p["state"]), str(p["phys_state"]), str(p["lid"]), str(p["port_guid"]),
                     str(p["rate_gbps"]), str(p["width"]), str(p["speed"]));
    if (!p["sm"].is_null())
      s += fmt::format("  sm       {} lid {} priority {} {}\n", str(p["sm"]["guid"]), str(p["sm"]["lid"]),
                       str(p["sm"]["priority"]), str(p["sm"]["state"]));
    if (!p["neighbor"].is_null())
      s += fmt::format("  neighbor {} {} port {} \"{}\"\n", str(p["neighbor"]["type"]), str(p["neighbor"]["node_guid"]),
                       str(p["neighbor"]["port"]), str(p["neighbor"]["description"]));
    s += fmt::format("  uplinks  {}\n", p["uplinks"].dump());
    for (const auto& e : p["errors"]) s += "  error    " + str(e) + "\n";
  }
  if (j["load"].is_object()) {
    s += fmt::format("load   source {} cpu {} memory {}\n", str(j["load"].value("source", nlohmann::json())),
                     str(j["load"].value("cpu", nlohmann::json())), str(j["load"].value("memory", nlohmann::json())));
  } else {
    s += "load   " + str(j.value("load_reason", nlohmann::json("skipped"))) + "\n";
  }
  for (const auto& [k, v] : j["labels"].items()) s += fmt::format("label  {}={}\n", k, str(v));
  return s;
}

}  // namespace

int run_probe(const ProbeOptions& o) {
  ib::ProbeOptions ibo;
  ibo.backend = o.ib_backend;
  ibo.compute_devices = ib::device_list(o.compute_devices);
  ibo.sysfs_root = o.sysfs_root;
  ibo.mad_timeout = std::chrono::milliseconds(o.mad_timeout_ms);
  ibo.mad_retries = o.mad_retries;
  ibo.deadline = std::chrono::milliseconds(static_cast<long>(o.deadline_seconds * 1000));
  ib::IbProber prober(ibo);
  const ib::IbReport report = prober.probe();

  nlohmann::json j;
  j["node"] = node_name(o);
  j["rdma"] = report.rdma;
  j["ib"] = ib::ib_json(report);
  if (o.sample_seconds <= 0) {
    j["load"] = nullptr;
    j["load_reason"] = "skipped: --sample-seconds 0";
  } else {
    load::LoadProbeOptions lo;
    lo.backend = o.load_backend;
    lo.sample_seconds = o.sample_seconds;
    lo.cgroup = o.cgroup;
    auto load = load::probe_load(lo);
    if (load) {
      j["load"] = *load;
    } else {
      j["load"] = nullptr;
      j["load_reason"] = load.message();
    }
  }
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [k, v] : ib::ib_labels(report)) labels[k] = v;
  j["labels"] = labels;
  std::cout << (o.output == "text" ? text_report(j) : j.dump(2) + "\n");
  return 0;
}

}  // namespace weft::agent
