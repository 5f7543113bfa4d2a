#include "descheduler/core/plugins/common/pod_status.h"

#include <algorithm>
#include <string>

#include "descheduler/core/plugins/common/args.h"

namespace weft::descheduler {
namespace {

using nlohmann::json;

SharedString text(const json& v, StringPool& pool) {
  return v.is_string() ? pool.intern(v.get_ref<const std::string&>()) : SharedString();
}

Result<std::optional<TimePoint>> time_of(const json& v, const std::string& where) {
  if (v.is_null()) return std::optional<TimePoint>();
  if (!v.is_string()) return make_error(where + ": must be an RFC 3339 time");
  auto t = parse_rfc3339(v.get<std::string>());
  if (!t) return make_error(where + ": " + t.message());
  return std::optional<TimePoint>(*t);
}

Status add_containers(const json& list, ContainerState::Kind kind, const std::string& where, StringPool& pool,
                      std::vector<ContainerState>& out) {
  if (list.is_null()) return {};
  if (!list.is_array()) return make_error(where + ": must be a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const json& cs = list[i];
    std::string at = where + "[" + std::to_string(i) + "]";
    ContainerState c;
    c.kind = kind;
    const json& restarts = args::field(cs, "restartCount");
    if (!restarts.is_null()) {
      if (!restarts.is_number_integer() || restarts.get<int64_t>() < 0 || restarts.get<int64_t>() > INT32_MAX)
        return make_error(at + ".restartCount: must be a non-negative integer");
      c.restarts = restarts.get<int32_t>();
    }
    const json& state = args::field(cs, "state");
    c.waiting_reason = text(args::field(args::field(state, "waiting"), "reason"), pool);
    const json& terminated = args::field(state, "terminated");
    if (terminated.is_object()) {
      c.terminated_reason = text(args::field(terminated, "reason"), pool);
      const json& code = args::field(terminated, "exitCode");
      if (!code.is_null()) {
        if (!code.is_number_integer() || code.get<int64_t>() > INT32_MAX || code.get<int64_t>() < INT32_MIN)
          return make_error(at + ".state.terminated.exitCode: must be a 32-bit integer");
        c.exit_code = code.get<int32_t>();
      }
    }
    out.push_back(std::move(c));
  }
  return {};
}

}  // namespace

Result<PodStatusInfo> decode_pod_status(const json& pod, StringPool& pool) {
  PodStatusInfo out;
  const json& meta = args::field(pod, "metadata");
  auto created = time_of(args::field(meta, "creationTimestamp"), "metadata.creationTimestamp");
  if (!created) return created.error();
  out.created = *created;
  const json& owners = args::field(meta, "ownerReferences");
  if (owners.is_array())
    for (const auto& o : owners)
      if (o.is_object()) out.owners.push_back({text(args::field(o, "kind"), pool), text(args::field(o, "name"), pool)});
  const json& spec = args::field(pod, "spec");
  out.requires_node_affinity =
      args::field(args::field(args::field(spec, "affinity"), "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution").is_object();
  const json& containers = args::field(spec, "containers");
  if (containers.is_array())
    for (const auto& c : containers) out.images.push_back(text(args::field(c, "image"), pool));
  std::sort(out.images.begin(), out.images.end());
  const json& status = args::field(pod, "status");
  out.reason = text(args::field(status, "reason"), pool);
  struct List { const char* key; ContainerState::Kind kind; };
  for (List l : {List{"containerStatuses", ContainerState::Kind::App},
                 List{"initContainerStatuses", ContainerState::Kind::Init},
                 List{"ephemeralContainerStatuses", ContainerState::Kind::Ephemeral}})
    if (auto s = add_containers(args::field(status, l.key), l.kind, std::string("status.") + l.key, pool, out.containers); !s)
      return s.error();
  const json& conditions = args::field(status, "conditions");
  if (conditions.is_array()) {
    for (size_t i = 0; i < conditions.size(); ++i) {
      const json& c = conditions[i];
      auto t = time_of(args::field(c, "lastTransitionTime"), "status.conditions[" + std::to_string(i) + "].lastTransitionTime");
      if (!t) return t.error();
      out.conditions.push_back({text(args::field(c, "type"), pool), text(args::field(c, "status"), pool),
                                text(args::field(c, "reason"), pool), *t});
    }
  }
  return out;
}

}  // namespace weft::descheduler
