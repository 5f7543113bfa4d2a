// --load-backend auto|ebpf|procfs: builds the source and says why it was chosen.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "collectors/load/ebpf/ebpf_options.h"
#include "collectors/load/source.h"
#include "collectors/load/text_files.h"

namespace weft::load {

enum class Backend { Auto, Ebpf, Procfs };

Result<Backend> parse_backend(const std::string& text);

struct SelectedSource {
  std::unique_ptr<LoadSource> source;
  std::string reason;  // one line, e.g. "auto: ebpf unavailable (...); using procfs"
};

struct SourceFactories {
  std::function<Result<std::unique_ptr<LoadSource>>()> ebpf;
  std::function<Result<std::unique_ptr<LoadSource>>()> procfs;
};

// auto tries ebpf and falls back to procfs (logging why); an explicit backend that
// fails is an error.
Result<SelectedSource> select_source(Backend backend, const SourceFactories& factories);

// The real backends on this host. files must outlive the sources. ebpf: how the eBPF
// backend measures (default: CPU time sampled, run-queue waits duty-cycled).
SourceFactories host_factories(const TextFiles& files, const EbpfOptions& ebpf = {});
// The same, each source owning its own HostFiles: for callers that keep the source.
SourceFactories host_factories(const EbpfOptions& ebpf = {});

}  // namespace weft::load
