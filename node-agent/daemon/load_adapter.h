// The daemon's LoadSource over collectors/load: the backend counts continuously (the
// eBPF programs in the kernel, or procfs/PSI); each sample() is the window since the
// previous one, plus totals since the agent started for the cumulative metrics.
#pragma once

#include <memory>
#include <optional>

#include "collectors/load/source.h"
#include "collectors/load/window.h"
#include "node-agent/daemon/sources.h"

namespace weft::agent {

class CollectorLoadSource : public LoadSource {
 public:
  explicit CollectorLoadSource(std::unique_ptr<weft::load::LoadSource> backend);
  Result<LoadSnapshot> sample() override;

 private:
  std::unique_ptr<weft::load::LoadSource> backend_;
  std::optional<weft::load::LoadCounters> first_;
  std::optional<weft::load::LoadCounters> previous_;
};

// Pure part, for tests: the snapshot for the window previous -> now, with totals from first.
Result<LoadSnapshot> snapshot_from_counters(const std::string& source, const weft::load::LoadCounters& first,
                                            const weft::load::LoadCounters& previous,
                                            const weft::load::LoadCounters& now);

}  // namespace weft::agent
