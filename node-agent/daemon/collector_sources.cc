#include "node-agent/daemon/collector_sources.h"

#include "collectors/load/select.h"
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
  auto parsed = weft::load::parse_backend(backend);
  if (!parsed) return parsed.error();
  auto selected = weft::load::select_source(*parsed, weft::load::host_factories());
  if (!selected) return selected.error();
  if (why) *why = selected->reason;
  weft::load::SamplerOptions options;
  options.period = period;
  options.window = window;
  auto source = CollectorLoadSource::start(std::move(selected.value()), options);
  if (!source) return source.error();
  return std::unique_ptr<LoadSource>(std::move(source.value()));
}

}  // namespace weft::agent
