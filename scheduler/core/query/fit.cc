#include "scheduler/core/query/fit.h"

#include "scheduler/core/config.h"
#include "scheduler/core/framework/session.h"

namespace weft::scheduler::query {
namespace {

// The plugins whose filters decide where a pod may run, at Volcano's defaults.
const char* const kFilterPlugins[] = {"predicates", "volumes"};

}  // namespace

Fit::Fit(const Snapshot& snapshot)
    : snapshot_(snapshot), config_(std::make_unique<Config>()), options_(std::make_unique<SessionOptions>()) {
  for (const char* name : kFilterPlugins) config_->plugins.emplace_back(name);
  session_ = std::make_unique<Session>(snapshot, *config_, *options_);
  Session& ssn = *session_;
  // Where the session's resource accounting put each pod (bound pods on known nodes).
  ssn.node_of_pod.assign(snapshot.pods.size(), -1);
  for (size_t p = 0; p < snapshot.pods.size(); ++p) ssn.node_of_pod[p] = ssn.cluster.placed().node_of(static_cast<int>(p));
  for (const auto& option : config_->plugins) open_plugin(ssn, option);   // default arguments always parse
}

Fit::~Fit() = default;

int Fit::node_of(int pod) const { return session_->node_of_pod[static_cast<size_t>(pod)]; }

void Fit::place(int pod, int node) {
  Session& ssn = *session_;
  const int from = node_of(pod);
  if (from == node) return;
  if (from >= 0) ssn.cluster.release(pod, from);
  if (node >= 0) ssn.cluster.assume(pod, node);
  ssn.node_of_pod[static_cast<size_t>(pod)] = node;
}

bool Fit::depends_on_other_pods() const { return session_->cluster.has_dynamic_predicates(); }

std::string Fit::reject(int pod, int node) { return reject_at(pod, node, true); }

std::string Fit::reject_placement(int pod, int node) { return reject_at(pod, node, false); }

// The scheduler's order: the static filters, the resources, then the filters that count
// other pods — with the pod off its own node meanwhile.
std::string Fit::reject_at(int pod, int node, bool resources) {
  Session& ssn = *session_;
  for (const auto& predicate : ssn.node_callbacks.predicates)
    if (std::string why = predicate(pod, node); !why.empty()) return why;
  const int from = node_of(pod);
  if (from >= 0) place(pod, -1);
  std::string why;
  // On its own node a pod holds its room already (it is only asked to stay).
  if (resources && from != node && !ssn.cluster.fits(pod, node)) why = ssn.cluster.resources_message(pod, node);
  if (why.empty()) why = ssn.cluster.dynamic_reject(pod, node);
  if (from >= 0) place(pod, from);
  return why;
}

std::vector<std::string> Fit::other_pod_rejects(int pod, int node) {
  Session& ssn = *session_;
  const int from = node_of(pod);
  if (from >= 0) place(pod, -1);
  std::vector<std::string> out;
  for (const auto& predicate : ssn.node_callbacks.dynamic_predicates)
    if (std::string why = predicate(pod, node); !why.empty()) out.push_back(std::move(why));
  if (from >= 0) place(pod, from);
  return out;
}

int Fit::dims() const { return session_->cluster.dims(); }
const std::string& Fit::dim_name(int d) const { return session_->cluster.dim_name(d); }
std::span<const int64_t> Fit::request(int pod) const { return session_->cluster.request(pod); }
int64_t Fit::free(int node, int d) const { return session_->cluster.free(node, d); }
int64_t Fit::allocatable(int node, int d) const { return session_->cluster.allocatable(node, d); }

}  // namespace weft::scheduler::query
