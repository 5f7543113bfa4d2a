#include "descheduler/app/load_source.h"

#include <fstream>
#include <sstream>

#include "descheduler/app/prometheus_load.h"

namespace weft::descheduler {

std::string LoadSpec::describe() const {
  switch (kind) {
    case Kind::Prometheus: return "prometheus=" + value;
    case Kind::File: return "file=" + value;
    case Kind::Annotations: return "annotations";
  }
  return "?";
}

Result<LoadSpec> parse_load_spec(const std::string& text) {
  LoadSpec spec;
  auto starts = [&](const char* p) { return text.rfind(p, 0) == 0; };
  if (text == "annotations") {
    spec.kind = LoadSpec::Kind::Annotations;
  } else if (starts("prometheus=")) {
    spec.kind = LoadSpec::Kind::Prometheus;
    spec.value = text.substr(11);
    if (spec.value.rfind("http://", 0) != 0 && spec.value.rfind("https://", 0) != 0)
      return make_error("--load " + text + ": the Prometheus address must start with http:// or https://");
  } else if (starts("file=")) {
    spec.kind = LoadSpec::Kind::File;
    spec.value = text.substr(5);
    if (spec.value.empty()) return make_error("--load file=: no file named");
  } else {
    return make_error("--load '" + text + "': use prometheus=URL, file=F or annotations");
  }
  return spec;
}

Result<LoadSpec> load_spec_from_policy(const Policy& policy) {
  const MetricsArgs& m = policy.load_aware.metrics;
  // LowNodeUtilization reads no load: the annotations source costs nothing to "fetch".
  if (m.type == MetricsType::Annotations || policy.load_aware.requests_only) return LoadSpec{LoadSpec::Kind::Annotations, ""};
  if (m.address.empty())
    return make_error("policy LoadAware.metrics has type Prometheus but no address (or give --load prometheus=URL)");
  return parse_load_spec("prometheus=" + m.address);
}

Result<LoadReport> fetch_load(const LoadSpec& spec, const Policy& policy, const Cluster& cluster, TimePoint now) {
  switch (spec.kind) {
    case LoadSpec::Kind::Annotations: return load_from_annotations(cluster);
    case LoadSpec::Kind::Prometheus: return PrometheusLoad(spec.value, policy.load_aware.metrics).fetch(now);
    case LoadSpec::Kind::File: {
      std::ifstream in(spec.value);
      if (!in) return make_error("load file " + spec.value + ": cannot be read");
      std::stringstream text;
      text << in.rdbuf();
      return parse_load_file(text.str(), spec.value);
    }
  }
  return make_error("unknown load source");
}

}  // namespace weft::descheduler
