#include "scheduler/core/node_fields.h"

#include "common/keys.h"
#include "kube/client/json_cursor.h"
#include "kube/client/json_reader.h"
#include "kube/objects.h"
#include "scheduler/core/pod_fields.h"
#include "kube/json_field.h"

namespace weft::scheduler {

using nlohmann::json;
using kube::JsonCursor;

namespace {

using kube::json_at;
// A string's value; else "" (metadata strings of another type read as absent, as
// kube::metadata_string reads them).
Status string_or_nothing(JsonCursor& c, std::string& into) {
  into.clear();
  return c.peek() == '"' ? c.string(into) : c.pass_over();
}

// The next value's text, for the rules to read later.
Status text_of(JsonCursor& c, std::string& into) {
  auto span = c.skip();
  if (!span) return span.error();
  into.assign(span->data(), span->size());
  return {};
}

Status read_metadata(JsonCursor& c, NodeFields& f) {
  if (c.peek() != '{') return c.pass_over();
  return c.members("metadata", [&](std::string_view key) -> Status {
    std::string* text = key == "name"                ? &f.name
                        : key == "uid"               ? &f.uid
                        : key == "resourceVersion"   ? &f.resource_version
                        : key == "creationTimestamp" ? &f.created
                                                     : nullptr;
    if (text) return string_or_nothing(c, *text);
    if (key == "labels") {
      f.labels.clear();
      if (c.peek() != '{') return c.pass_over();
      return c.members("metadata.labels", [&](std::string_view label) -> Status {
        std::string value;
        if (c.peek() == '"') {
          if (auto s = c.string(value); !s) return s;
        } else {
          auto span = c.skip();
          if (!span) return span.error();
          auto v = kube::read_json(*span);
          if (!v) return v.error();
          value = v->dump();
        }
        f.labels.emplace_back(label, std::move(value));
        return {};
      });
    }
    if (key == "annotations") {
      f.load.clear();
      f.arrival.clear();
      if (c.peek() != '{') return c.pass_over();
      return c.members("metadata.annotations", [&](std::string_view annotation) {
        if (annotation == keys::kLoadAnnotation) return string_or_nothing(c, f.load);
        if (annotation == keys::kArrivalAnnotation) return string_or_nothing(c, f.arrival);
        return c.pass_over();
      });
    }
    return c.pass_over();
  });
}

Status read_spec(JsonCursor& c, NodeFields& f) {
  if (c.peek() != '{') return c.pass_over();
  return c.members("spec", [&](std::string_view key) -> Status {
    if (key == "taints") return text_of(c, f.taints);
    if (key == "unschedulable") {
      auto span = c.skip();
      if (!span) return span.error();
      f.unschedulable = *span == "true";
      return {};
    }
    return c.pass_over();
  });
}

// One condition: its type and status when strings (kube::node_ready's reading).
Status read_condition(JsonCursor& c, NodeFields& f) {
  ++f.conditions;
  if (c.peek() != '{') return c.pass_over();
  std::string type, status;
  auto s = c.members("status.conditions", [&](std::string_view key) -> Status {
    if (key == "type") return string_or_nothing(c, type);
    if (key == "status") return string_or_nothing(c, status);
    return c.pass_over();
  });
  if (type == "Ready" && !f.ready) f.ready = status;
  return s;
}

Status read_status(JsonCursor& c, NodeFields& f) {
  if (c.peek() != '{') return c.pass_over();
  return c.members("status", [&](std::string_view key) -> Status {
    if (key == "allocatable") {
      f.allocatable_given = false;
      const bool object = c.peek() == '{';
      if (auto s = text_of(c, f.allocatable); !s) return s;
      // An object with members: after its '{' and any whitespace, something but its '}'.
      f.allocatable_given = object && f.allocatable.find_first_not_of(" \t\r\n", 1) != f.allocatable.size() - 1;
      return {};
    }
    if (key == "capacity") return text_of(c, f.capacity);
    if (key == "conditions") {
      f.conditions_listed = c.peek() == '[';
      f.conditions = 0;
      f.ready.reset();
      if (!f.conditions_listed) return c.pass_over();
      return c.elements("status.conditions", [&](size_t) { return read_condition(c, f); });
    }
    return c.pass_over();
  });
}

}  // namespace

Result<NodeFields> node_fields_of(const json& o) {
  if (!o.is_object()) return make_error(o.dump().substr(0, 60) + " is not an object");
  NodeFields f;
  f.kind = kube::kind_of(o);
  f.name = kube::metadata_string(o, "name");
  f.uid = kube::metadata_string(o, "uid");
  f.resource_version = kube::metadata_string(o, "resourceVersion");
  f.created = kube::metadata_string(o, "creationTimestamp");
  if (const json& labels = json_at(json_at(o, "metadata"), "labels"); labels.is_object())
    for (const auto& [k, v] : labels.items()) f.labels.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
  f.load = kube::annotation(o, keys::kLoadAnnotation);
  f.arrival = kube::annotation(o, keys::kArrivalAnnotation);
  const json& spec = json_at(o, "spec");
  f.unschedulable = json_at(spec, "unschedulable").is_boolean() && json_at(spec, "unschedulable").get<bool>();
  f.taints = json_at(spec, "taints").dump();
  const json& status = json_at(o, "status");
  f.allocatable = json_at(status, "allocatable").dump();
  f.allocatable_given = json_at(status, "allocatable").is_object() && !json_at(status, "allocatable").empty();
  f.capacity = json_at(status, "capacity").dump();
  if (const json& conds = json_at(status, "conditions"); conds.is_array()) {
    f.conditions_listed = true;
    f.conditions = conds.size();
    for (const auto& cond : conds) {
      const json& type = json_at(cond, "type");
      if (!type.is_string() || type != "Ready") continue;
      const json& st = json_at(cond, "status");
      f.ready = st.is_string() ? st.get<std::string>() : "";
      break;
    }
  }
  return f;
}

namespace {
Result<NodeFields> read_node_text(std::string_view text, bool checked) {
  NodeFields f;
  JsonCursor c = checked ? JsonCursor::over_checked(text) : JsonCursor(text);
  if (c.peek() != '{') return make_error("the node is not a JSON object");
  auto s = c.members("node", [&](std::string_view key) -> Status {
    // A section met twice is read from its last copy only, as a tree keeps it.
    if (key == "kind") return string_or_nothing(c, f.kind);
    if (key == "metadata") {
      f.name = f.uid = f.resource_version = f.created = f.load = f.arrival = "";
      f.labels.clear();
      return read_metadata(c, f);
    }
    if (key == "spec") {
      f.unschedulable = false;
      f.taints = "null";
      return read_spec(c, f);
    }
    if (key == "status") {
      f.allocatable = f.capacity = "null";
      f.allocatable_given = f.conditions_listed = false;
      f.conditions = 0;
      f.ready.reset();
      return read_status(c, f);
    }
    return c.pass_over();
  });
  if (!s) return s.error();
  if (auto end = c.end(); !end) return end.error();
  return f;
}
}  // namespace

Result<NodeFields> node_fields_of_text(std::string_view text, bool checked) {
  auto f = read_node_text(text, checked);
  if (f) return f;
  return tree_verdict(text, node_fields_of);
}

}  // namespace weft::scheduler
