#include "node-agent/daemon/collector_sources.h"

#include "node-agent/daemon/ib_adapter.h"
#include "node-agent/daemon/load_adapter.h"

namespace weft::agent {

Result<std::unique_ptr<IbSource>> make_ib_source(const std::string& backend, std::string* why) {
  if (backend != "auto" && backend != "umad" && backend != "verbs")
    return make_error("'" + backend + "' is not auto, umad or verbs");
  weft::ib::ProbeOptions options;
  options.backend = backend;
  if (why) *why = "--ib-backend " + backend + " (each probe reports which backend served each port)";
  return std::unique_ptr<IbSource>(std::make_unique<CollectorIbSource>(std::move(options)));
}

Result<std::unique_ptr<LoadSource>> make_load_source(const std::string& backend, std::chrono::milliseconds period,
                                                     std::chrono::milliseconds window, std::string* why) {
  weft::load::MonitorOptions options;
  options.backend = backend;
  options.sampling.period = period;
  options.sampling.window = window;
  auto monitor = weft::load::start_load_monitor(options, why);
  if (!monitor) return monitor.error();
  return std::unique_ptr<LoadSource>(std::make_unique<CollectorLoadSource>(std::move(monitor.value()), period));
}

}  // namespace weft::agent
