#include "descheduler/app/state_store.h"

namespace weft::descheduler {
namespace {
constexpr const char* kKey = "state.json";
}

Result<ObjectRef> parse_object_ref(const std::string& text, const std::string& flag) {
  size_t slash = text.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() || text.find('/', slash + 1) != std::string::npos)
    return make_error(flag + " '" + text + "': want NAMESPACE/NAME");
  return ObjectRef{text.substr(0, slash), text.substr(slash + 1)};
}

Result<DeschedulerState> StateStore::load() {
  std::string where = "state ConfigMap " + ref_.text();
  auto cm = client_.get(kube::resources::configmaps(), ref_.ns, ref_.name);
  if (!cm) {
    if (cm.error().code == 404) return DeschedulerState{};
    return wrap(cm.error(), where);
  }
  const auto& data = cm->value("data", nlohmann::json::object());
  if (!data.contains(kKey)) return DeschedulerState{};
  if (!data[kKey].is_string()) return make_error(where + ": data." + kKey + " is not a string");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(data[kKey].get<std::string>());
  } catch (const nlohmann::json::exception& e) {   // parse_error, or out_of_range for a number too large
    return make_error(where + ": data." + kKey + ": " + e.what());
  }
  return DeschedulerState::from_json(doc, where + " data." + kKey);
}

Status StateStore::save(const DeschedulerState& state) {
  std::string text = state.to_json().dump();
  auto cm = client_.read_modify_write(kube::resources::configmaps(), ref_.ns, ref_.name, [&](nlohmann::json& obj) {
    obj["data"][kKey] = text;
    return Status{};
  });
  if (cm) return {};
  if (cm.error().code != 404) return wrap(cm.error(), "state ConfigMap " + ref_.text());
  nlohmann::json obj = {{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", ref_.name}, {"namespace", ref_.ns},
                                      {"labels", {{"app.kubernetes.io/name", "weft-descheduler"}}}}},
                        {"data", {{kKey, text}}}};
  auto created = client_.create(kube::resources::configmaps(), ref_.ns, obj);
  if (!created) return wrap(created.error(), "state ConfigMap " + ref_.text());
  return {};
}

}  // namespace weft::descheduler
