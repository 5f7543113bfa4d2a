// Every weft_ metric of docs/metrics.md. The agent's own counters live in a prometheus-cpp
// Registry; the machine's values (IB ports, load) are produced at scrape time from the
// last good snapshot by a Collectable, so a removed port's series disappears with it.
#pragma once

#include <memory>
#include <string>

#include <prometheus/collectable.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "node-agent/daemon/agent_state.h"

namespace weft::agent {

class AgentMetrics {
 public:
  AgentMetrics(const AgentState& state, const std::string& version);

  void ib_probe(double seconds, bool ok);
  void load_sample(bool ok);
  void publish(bool patched, bool failed);
  void scrape(double seconds);

  // The text exposition format (prometheus-cpp's TextSerializer).
  std::string render() const;

 private:
  const AgentState& state_;
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<prometheus::Collectable> snapshot_metrics_;
  prometheus::Histogram& ib_duration_;
  prometheus::Family<prometheus::Counter>& probe_errors_;
  prometheus::Family<prometheus::Counter>& probes_;
  prometheus::Counter& patches_;
  prometheus::Counter& publish_errors_;
  prometheus::Histogram& scrape_duration_;
};

}  // namespace weft::agent
