#include "tests/ib/fabric_fixture.h"

namespace weft::testing {

std::unique_ptr<RunningFabric> start_fabric(const fattree::Spec& spec) {
  auto f = std::make_unique<RunningFabric>();
  auto tree = fattree::build(spec);
  EXPECT_TRUE(tree.ok()) << (tree ? "" : tree.message());
  if (!tree) return nullptr;
  f->tree = *tree;
  f->dir = std::make_unique<TempDir>("weft-ib-fabric");
  write_file(f->dir->file("fabric.net"), fattree::render_net(f->tree));
  std::string error;
  f->sim = IbSim::start(f->dir->file("fabric.net"), &error);
  EXPECT_NE(f->sim, nullptr) << error;
  if (!f->sim) return nullptr;
  return f;
}

void start_master(RunningFabric& f, int priority) {
  const size_t sm = f.sim->start_sm({.host = f.tree.hosts.front().name, .priority = priority});
  ASSERT_TRUE(f.sim->wait_subnet_up(std::chrono::seconds(30)))
      << "OpenSM did not bring the subnet up:\n" << f.sim->sm_output(sm) << "\n" << f.sim->sm_log(sm);
}

ProbeRun probe_as(const RunningFabric& f, const std::string& host, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {binary("node-agent/weft-agent"), "probe", "--sample-seconds", "0",
                                   "--node-name", host};
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto r = f.sim->run_as(host, argv, std::chrono::seconds(30));
  ProbeRun out;
  out.code = r.code;
  out.seconds = r.seconds;
  out.out = r.out;
  out.err = r.err;
  out.report = nlohmann::json::parse(r.out, nullptr, false);
  if (out.report.is_discarded()) out.report = nullptr;
  return out;
}

}  // namespace weft::testing
