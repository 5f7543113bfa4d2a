#include "collectors/load/select.h"

#include "collectors/load/cgroup.h"
#include "collectors/load/procfs/procfs_source.h"
#include "common/log.h"
#ifdef WEFT_HAVE_BPF
#include "collectors/load/ebpf/ebpf_source.h"
#endif

namespace weft::load {

Result<Backend> parse_backend(const std::string& text) {
  if (text == "auto") return Backend::Auto;
  if (text == "ebpf") return Backend::Ebpf;
  if (text == "procfs") return Backend::Procfs;
  return make_error("--load-backend: unknown backend '" + text + "' (auto|ebpf|procfs)");
}

Result<SelectedSource> select_source(Backend backend, const SourceFactories& factories) {
  if (backend == Backend::Procfs) {
    auto p = factories.procfs();
    if (!p) return p.error();
    return SelectedSource{std::move(*p), "--load-backend procfs"};
  }
  auto e = factories.ebpf();
  if (e) {
    std::string reason = std::string(backend == Backend::Auto ? "auto: " : "--load-backend ebpf: ") +
                         "eBPF programs loaded and attached";
    if (auto d = (*e)->detail(); !d.empty()) reason += " (" + d + ")";
    return SelectedSource{std::move(*e), reason};
  }
  if (backend == Backend::Ebpf) return e.error();
  log::warn("load: eBPF backend unavailable, using procfs: {}", e.message());
  auto p = factories.procfs();
  if (!p) return wrap(p.error(), "procfs fallback (after: " + e.message() + ")");
  return SelectedSource{std::move(*p), "auto: eBPF unavailable (" + e.message() + "); using procfs"};
}

SourceFactories host_factories(const TextFiles& files, const EbpfOptions& ebpf) {
  std::string mount;
  if (auto mounts = files.read("/proc/self/mounts")) {
    if (auto m = parse_cgroup2_mount(*mounts)) mount = *m;
  }
  SourceFactories f;
  f.procfs = [&files, mount]() -> Result<std::unique_ptr<LoadSource>> {
    return std::unique_ptr<LoadSource>(std::make_unique<ProcfsSource>(files, mount));
  };
  f.ebpf = [&files, mount, ebpf]() -> Result<std::unique_ptr<LoadSource>> {
#ifdef WEFT_HAVE_BPF
    auto s = EbpfSource::create(files, mount, ebpf);
    if (!s) return s.error();
    return std::unique_ptr<LoadSource>(std::move(*s));
#else
    (void)files;
    (void)ebpf;
    return make_error("weft was built without eBPF support (libbpf-dev, bpftool or clang missing at build time)");
#endif
  };
  return f;
}

namespace {

// Keeps the files a source reads through alive as long as the source.
class OwningSource : public LoadSource {
 public:
  OwningSource(std::unique_ptr<HostFiles> files, std::unique_ptr<LoadSource> inner)
      : files_(std::move(files)), inner_(std::move(inner)) {}
  ~OwningSource() override { inner_.reset(); }
  std::string name() const override { return inner_->name(); }
  std::string detail() const override { return inner_->detail(); }
  Status watch_cgroup(const std::string& path) override { return inner_->watch_cgroup(path); }
  Status unwatch_cgroup(const std::string& path) override { return inner_->unwatch_cgroup(path); }
  bool attributes_cgroups() const override { return inner_->attributes_cgroups(); }
  Result<LoadCounters> read() override { return inner_->read(); }

 private:
  std::unique_ptr<HostFiles> files_;
  std::unique_ptr<LoadSource> inner_;
};

using Factory = std::function<Result<std::unique_ptr<LoadSource>>()>;

Factory owning(Factory SourceFactories::*which, const EbpfOptions& ebpf) {
  return [which, ebpf]() -> Result<std::unique_ptr<LoadSource>> {
    auto files = std::make_unique<HostFiles>();
    auto inner = (host_factories(*files, ebpf).*which)();
    if (!inner) return inner.error();
    return std::unique_ptr<LoadSource>(std::make_unique<OwningSource>(std::move(files), std::move(*inner)));
  };
}

}  // namespace

SourceFactories host_factories(const EbpfOptions& ebpf) {
  SourceFactories f;
  f.ebpf = owning(&SourceFactories::ebpf, ebpf);
  f.procfs = owning(&SourceFactories::procfs, ebpf);
  return f;
}

}  // namespace weft::load
