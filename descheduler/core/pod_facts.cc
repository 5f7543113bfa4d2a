#include "descheduler/core/pod_facts.h"

#include <algorithm>
#include <charconv>
#include <climits>

#include "common/keys.h"
#include "descheduler/core/cluster.h"
#include "kube/client/json_cursor.h"
#include "kube/objects.h"
#include "scheduler/core/query/group_name.h"

namespace weft::descheduler {
namespace {

using kube::JsonCursor;
using Section = scheduler::PodTextExtension::Section;

// A string member as text (another type: empty, as the tree readers take it).
Status text_of(JsonCursor& c, SharedString& into, StringPool& pool) {
  if (c.peek() != '"') {
    into = SharedString();
    return c.pass_over();
  }
  std::string s;
  if (auto st = c.string(s); !st) return st;
  into = pool.intern(s);
  return {};
}

// An integer member in [lo, hi]; null: absent. `error()` words the refusal.
template <class Message>
Status integer_of(JsonCursor& c, std::optional<int64_t>& into, int64_t lo, int64_t hi, const Message& error) {
  auto text = c.skip();
  if (!text) return text.error();
  into.reset();
  if (*text == "null") return {};
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < lo || v > hi) return make_error(error());
  into = v;
  return {};
}

// `where` names the field in an error (a text, or a function that spells it): built only then.
template <class Where>
Result<std::optional<TimePoint>> time_of(const std::string& text, const Where& where) {
  if (text.empty()) return std::optional<TimePoint>();
  auto t = parse_rfc3339(text);
  if (!t) return make_error(kube::json_cursor_detail::spelled(where) + ": " + t.message());
  return std::optional<TimePoint>(*t);
}

const std::string* value_of(const std::vector<std::pair<std::string, std::string>>& kv, const char* key) {
  for (const auto& [k, v] : kv)
    if (k == key) return &v;
  return nullptr;
}

// spec.volumes (its text): whether a claim, and whether node-local storage, is mounted.
Status volume_kinds(const std::string& volumes, bool& pvc, bool& local) {
  if (volumes.empty() || volumes[0] != '[') return {};
  JsonCursor c = JsonCursor::over_checked(volumes);
  return c.elements("spec.volumes", [&](size_t) -> Status {
    if (c.peek() != '{') return c.pass_over();
    return c.members("spec.volumes[]", [&](std::string_view key) {
      if (key == "persistentVolumeClaim") pvc = true;
      if (key == "hostPath" || key == "emptyDir") local = true;
      return c.pass_over();
    });
  });
}

}  // namespace

void PodFactsReader::restart(Section section) {
  switch (section) {
    case Section::Top:
      kind_.clear();
      has_metadata_ = false;
      restart(Section::Metadata);
      has_metadata_ = false;
      restart(Section::Spec);
      restart(Section::Status);
      break;
    case Section::Metadata:
      has_metadata_ = true;
      owners_.clear();
      break;
    case Section::Spec:
      images_.clear();
      requires_node_affinity_ = false;
      break;
    case Section::Status:
      reason_ = SharedString();
      qos_class_.clear();
      for (auto& list : statuses_) list.clear();
      conditions_.clear();
      break;
  }
}

bool PodFactsReader::keeps_annotation(std::string_view key) const {
  return key == kube::kConfigSourceAnnotation || key == kube::kConfigMirrorAnnotation || key == kEvictAnnotation ||
         key == kPreferNoEvictionAnnotation || key == keys::kArrivalAnnotation;
}

Status PodFactsReader::member(Section section, std::string_view key, JsonCursor& c) {
  if (section == Section::Top && key == "kind") {
    if (c.peek() != '"') {
      kind_.clear();
      return c.pass_over();
    }
    return c.string(kind_);
  }
  if (section == Section::Metadata && key == "ownerReferences") return read_owners(c);
  if (section == Section::Status) {
    if (key == "reason") return text_of(c, reason_, pool_);
    if (key == "qosClass") {
      qos_class_.clear();
      return c.peek() == '"' ? c.string(qos_class_) : c.pass_over();
    }
    if (key == "containerStatuses") return read_statuses(c, ContainerState::Kind::App, key);
    if (key == "initContainerStatuses") return read_statuses(c, ContainerState::Kind::Init, key);
    if (key == "ephemeralContainerStatuses") return read_statuses(c, ContainerState::Kind::Ephemeral, key);
  }
  return c.pass_over();
}

Status PodFactsReader::container_member(size_t index, std::string_view key, JsonCursor& c) {
  if (key != "image") return c.pass_over();
  if (images_.size() <= index) images_.resize(index + 1);
  return text_of(c, images_[index], pool_);
}

Status PodFactsReader::also(Section section, std::string_view key, std::string_view text) {
  if (section == Section::Status && key == "conditions") return read_conditions(text);
  if (section != Section::Spec || key != "affinity") return {};
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution is an object.
  requires_node_affinity_ = false;
  JsonCursor c = JsonCursor::over_checked(text);
  return c.members("spec.affinity", [&](std::string_view part) -> Status {
    if (part != "nodeAffinity" || c.peek() != '{') return c.pass_over();
    return c.members("spec.affinity.nodeAffinity", [&](std::string_view rule) {
      if (rule == "requiredDuringSchedulingIgnoredDuringExecution") requires_node_affinity_ = c.peek() == '{';
      return c.pass_over();
    });
  });
}

Status PodFactsReader::read_owners(JsonCursor& c) {
  owners_.clear();
  if (c.peek() != '[') return c.pass_over();
  return c.elements("metadata.ownerReferences", [&](size_t i) -> Status {
    if (c.peek() != '{') return c.pass_over();
    auto at = [&] { return "metadata.ownerReferences[" + std::to_string(i) + "]"; };
    Owner o;
    // Worded as the tree readers refuse a field of the wrong type.
    auto wrong_type = [&](std::string_view key, const char* what) {
      return make_error("a field has the wrong type (" + at().append(".").append(key) + " is not " + what + ")");
    };
    auto s = c.members(at, [&](std::string_view key) -> Status {
      std::string* text = key == "kind" ? &o.kind : key == "name" ? &o.name : key == "uid" ? &o.uid : nullptr;
      if (text) return c.peek() == '"' || c.peek() == 'n' ? c.string_field("", *text) : wrong_type(key, "a string");
      if (key != "controller") return c.pass_over();
      auto v = c.skip();
      if (!v) return v.error();
      if (*v != "true" && *v != "false" && *v != "null") return wrong_type(key, "a boolean");
      o.controller = *v == "true";
      return {};
    });
    if (!s) return s;
    owners_.push_back(std::move(o));
    return {};
  });
}

Status PodFactsReader::read_statuses(JsonCursor& c, ContainerState::Kind kind, std::string_view key) {
  auto& out = statuses_[static_cast<size_t>(kind)];
  out.clear();
  auto where = [&] { return std::string("status.").append(key); };
  if (c.peek() == 'n') return c.pass_over();
  if (c.peek() != '[') return make_error(where() + ": must be a list");
  return c.elements(where, [&](size_t i) -> Status {
    auto at = [&] { return where() + "[" + std::to_string(i) + "]"; };
    ContainerState cs;
    cs.kind = kind;
    if (c.peek() != '{') {   // not an object: a state with nothing set, as the tree reader takes it
      out.push_back(std::move(cs));
      return c.pass_over();
    }
    auto s = c.members(at, [&](std::string_view field) -> Status {
      if (field == "restartCount") {
        std::optional<int64_t> restarts;
        if (auto st = integer_of(c, restarts, 0, INT32_MAX, [&] { return at() + ".restartCount: must be a non-negative integer"; });
            !st)
          return st;
        cs.restarts = static_cast<int32_t>(restarts.value_or(0));
        return {};
      }
      if (field != "state") return c.pass_over();
      cs.waiting_reason = cs.terminated_reason = SharedString();
      cs.exit_code.reset();
      if (c.peek() != '{') return c.pass_over();
      return c.members([&] { return at() + ".state"; }, [&](std::string_view state) -> Status {
        if (state != "waiting" && state != "terminated") return c.pass_over();
        if (c.peek() != '{') return c.pass_over();
        const bool terminated = state == "terminated";
        // A terminated state's exitCode is a Go int32: absent (or null) it reads 0 upstream.
        if (terminated) cs.exit_code = 0;
        return c.members([&] { return at().append(".state.").append(state); }, [&](std::string_view part) -> Status {
          if (part == "reason") return text_of(c, terminated ? cs.terminated_reason : cs.waiting_reason, pool_);
          if (!terminated || part != "exitCode") return c.pass_over();
          std::optional<int64_t> code;
          if (auto st = integer_of(c, code, INT32_MIN, INT32_MAX,
                                   [&] { return at() + ".state.terminated.exitCode: must be a 32-bit integer"; });
              !st)
            return st;
          cs.exit_code = static_cast<int32_t>(code.value_or(0));
          return {};
        });
      });
    });
    if (!s) return s;
    out.push_back(std::move(cs));
    return {};
  });
}

Status PodFactsReader::read_conditions(std::string_view text) {
  conditions_.clear();
  if (text.empty() || text[0] != '[') return {};
  JsonCursor c = JsonCursor::over_checked(text);
  return c.elements("status.conditions", [&](size_t i) -> Status {
    PodCondition cond;
    std::string time;
    if (c.peek() == '{') {
      auto s = c.members("status.conditions", [&](std::string_view key) -> Status {
        if (key == "type") return text_of(c, cond.type, pool_);
        if (key == "status") return text_of(c, cond.status, pool_);
        if (key == "reason") return text_of(c, cond.reason, pool_);
        if (key != "lastTransitionTime") return c.pass_over();
        auto where = [i] { return "status.conditions[" + std::to_string(i) + "].lastTransitionTime"; };
        time.clear();
        if (c.peek() == 'n') return c.pass_over();
        if (c.peek() != '"') return make_error(where() + ": must be an RFC 3339 time");
        if (auto st = c.string(time); !st) return st;
        auto t = time_of(time, where);
        if (!t) return t.error();
        cond.last_transition = *t;
        return {};
      });
      if (!s) return s;
    } else if (auto s = c.pass_over(); !s) {
      return s;
    }
    conditions_.push_back(std::move(cond));
    return {};
  });
}

Result<PodInfo> PodFactsReader::facts(const scheduler::PodFields& f, const scheduler::PodInfo& twin) const {
  PodInfo p;
  p.ns = twin.namespace_name;   // "default" when not given, as here
  p.name = twin.name;
  p.priority_in_spec = f.priority.is_number_integer();
  p.priority = p.priority_in_spec ? f.priority.get<int32_t>() : 0;
  p.priority_class = twin.priority_class;
  auto stated = given_qos(qos_class_);
  if (!stated) return stated.error();
  p.qos = *stated ? **stated : qos_of(f.resources);
  PodStatusInfo& d = p.detail;
  bool have_controller = false;
  for (const Owner& o : owners_) {
    d.owners.push_back({o.kind.empty() ? SharedString() : pool_.intern(o.kind), o.name.empty() ? SharedString() : pool_.intern(o.name)});
    ++p.owner_count;
    if (o.kind == "DaemonSet") p.daemonset = true;
    if (have_controller || (!o.controller && !p.owner_kind.empty())) continue;
    p.owner_kind = o.kind.empty() ? pool_.intern("Owner") : d.owners.back().kind;
    p.owner_name = d.owners.back().name;
    p.owner_uid = pool_.intern(o.uid);
    have_controller = o.controller;
  }
  p.group = pool_.intern(scheduler::group_name([&](const char* key) { return value_of(f.annotations, key); }));
  // As written (the snapshot's record counts a Pending pod with a node as Running).
  if (!f.phase.empty()) p.phase = f.phase == twin.phase.view() ? twin.phase : pool_.intern(f.phase);
  auto started = time_of(f.start_time, "status.startTime");
  if (!started) return started.error();
  p.started = *started;
  p.mirror = kube::pod_is_mirror_or_static(value_of(f.annotations, kube::kConfigMirrorAnnotation),
                                          value_of(f.annotations, kube::kConfigSourceAnnotation));
  p.terminating = f.deleting;
  p.evict_annotation = value_of(f.annotations, kEvictAnnotation) != nullptr;
  p.prefer_no_eviction = value_of(f.annotations, kPreferNoEvictionAnnotation) != nullptr;
  if (auto s = volume_kinds(f.volumes, p.has_pvc, p.has_local_storage); !s) return s.error();
  auto created = time_of(f.created, "metadata.creationTimestamp");
  if (!created) return created.error();
  d.created = *created;
  d.reason = reason_;
  for (const auto& list : statuses_) d.containers.insert(d.containers.end(), list.begin(), list.end());
  d.conditions = conditions_;
  d.images.assign(f.resources.containers.size(), SharedString());
  for (size_t i = 0; i < images_.size() && i < d.images.size(); ++i) d.images[i] = images_[i];
  std::sort(d.images.begin(), d.images.end());
  d.requires_node_affinity = requires_node_affinity_;
  p.terminal = f.phase == "Succeeded" || f.phase == "Failed";
  return p;
}

Result<bool> arrives_later(const std::string& arrival, const std::string& where) {
  if (arrival == "0" || arrival.empty()) return false;
  try {
    return std::stoi(arrival) > 0;
  } catch (const std::exception&) {
    return make_error(where + ": annotation " + std::string(keys::kArrivalAnnotation) + " '" + arrival +
                      "' is not a number");
  }
}

}  // namespace weft::descheduler
