#include "descheduler/app/state_store.h"

namespace weft::descheduler {
namespace {
constexpr const char* kStateKey = "state.json";
constexpr const char* kRoomsKey = "rooms-in-progress.json";

nlohmann::json room_json(const RoomInProgress& r) {
  nlohmann::json victims = nlohmann::json::array();
  for (const auto& v : r.victims) victims.push_back({{"namespace", v.ns}, {"name", v.name}, {"node", v.from}});
  return {{"gang", r.gang}, {"reservation", r.reservation}, {"victims", victims}};
}

Result<RoomInProgress> room_from(const nlohmann::json& j, const std::string& where) {
  auto text = [&](const nlohmann::json& o, const char* k) -> Result<std::string> {
    if (!o.is_object() || !o.contains(k) || !o[k].is_string()) return make_error(where + ": '" + k + "' is not a string");
    return o[k].get<std::string>();
  };
  RoomInProgress r;
  auto gang = text(j, "gang");
  auto reservation = text(j, "reservation");
  if (!gang) return gang.error();
  if (!reservation) return reservation.error();
  r.gang = *gang;
  r.reservation = *reservation;
  if (!j.contains("victims") || !j["victims"].is_array()) return make_error(where + ": 'victims' is not a list");
  for (const auto& v : j["victims"]) {
    auto ns = text(v, "namespace"), name = text(v, "name"), node = text(v, "node");
    for (const auto* f : {&ns, &name, &node})
      if (!*f) return f->error();
    PlannedEviction e;
    e.ns = *ns, e.name = *name, e.from = *node;
    r.victims.push_back(std::move(e));
  }
  return r;
}

}  // namespace

Result<ObjectRef> parse_object_ref(const std::string& text, const std::string& flag) {
  size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() || text.find('/', slash + 1) != std::string::npos)
    return make_error(flag + " '" + text + "': want NAMESPACE/NAME");
  return ObjectRef{text.substr(0, slash), text.substr(slash + 1)};
}

Result<nlohmann::json> StateStore::read_key(const std::string& key) {
  std::string where = "state ConfigMap " + ref_.text();
  auto cm = client_.get(kube::resources::configmaps(), ref_.ns, ref_.name);
  if (!cm) {
    if (cm.error().code == 404) return nlohmann::json();
    return wrap(cm.error(), where);
  }
  const auto& data = cm->value("data", nlohmann::json::object());
  if (!data.contains(key)) return nlohmann::json();
  if (!data[key].is_string()) return make_error(where + ": data." + key + " is not a string");
  try {
    return nlohmann::json::parse(data[key].get<std::string>());
  } catch (const nlohmann::json::exception& e) {   // parse_error, or out_of_range for a number too large
    return make_error(where + ": data." + key + ": " + e.what());
  }
}

Result<DeschedulerState> StateStore::load() {
  auto doc = read_key(kStateKey);
  if (!doc) return doc.error();
  if (doc->is_null()) return DeschedulerState{};
  return DeschedulerState::from_json(*doc, "state ConfigMap " + ref_.text() + " data." + kStateKey);
}

Status StateStore::save(const DeschedulerState& state) { return write_key(kStateKey, state.to_json().dump()); }

Result<std::vector<RoomInProgress>> StateStore::load_rooms() {
  const std::string where = "state ConfigMap " + ref_.text() + " data." + kRoomsKey;
  auto doc = read_key(kRoomsKey);
  if (!doc) return doc.error();
  std::vector<RoomInProgress> out;
  if (doc->is_null()) return out;
  if (!doc->is_array()) return make_error(where + ": not a list");
  for (size_t i = 0; i < doc->size(); ++i) {
    auto r = room_from((*doc)[i], where + "[" + std::to_string(i) + "]");
    if (!r) return r.error();
    out.push_back(std::move(*r));
  }
  return out;
}

Status StateStore::save_rooms(const std::vector<RoomInProgress>& rooms) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& r : rooms) list.push_back(room_json(r));
  return write_key(kRoomsKey, list.dump());
}

Status StateStore::write_key(const std::string& key, const std::string& text) {
  auto cm = client_.read_modify_write(kube::resources::configmaps(), ref_.ns, ref_.name, [&](nlohmann::json& obj) {
    obj["data"][key] = text;
    return Status{};
  });
  if (cm) return {};
  if (cm.error().code != 404) return wrap(cm.error(), "state ConfigMap " + ref_.text());
  nlohmann::json obj = {{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", ref_.name}, {"namespace", ref_.ns},
                                      {"labels", {{"app.kubernetes.io/name", "weft-descheduler"}}}}},
                        {"data", {{key, text}}}};
  auto created = client_.create(kube::resources::configmaps(), ref_.ns, obj);
  if (!created) return wrap(created.error(), "state ConfigMap " + ref_.text());
  return {};
}

}  // namespace weft::descheduler
