#include "tools/kube-lite/patch.h"

#include <algorithm>
#include <map>
#include <set>

namespace weft::kube_lite {

using nlohmann::json;

PatchFormat patch_format(const std::string& content_type) {
  std::string ct = content_type.substr(0, content_type.find(';'));
  if (ct == "application/merge-patch+json") return PatchFormat::Merge;
  if (ct == "application/strategic-merge-patch+json") return PatchFormat::StrategicMerge;
  if (ct == "application/json-patch+json") return PatchFormat::Json;
  if (ct == "application/apply-patch+yaml") return PatchFormat::Apply;
  return PatchFormat::Unknown;
}

json merge_patch(const json& original, const json& patch) {
  json out = original;
  out.merge_patch(patch);
  return out;
}

Result<json> json_patch(const json& original, const json& patch) {
  if (!patch.is_array()) return make_error("json patch: the patch must be an array of operations");
  try {
    return original.patch(patch);
  } catch (const json::exception& e) {
    return make_error(std::string("json patch: ") + e.what());
  }
}

std::string strategic_merge_key(const std::string& field) {
  static const std::map<std::string, std::string> keys = {
      {"containers", "name"},       {"initContainers", "name"},  {"ephemeralContainers", "name"},
      {"volumes", "name"},          {"env", "name"},             {"imagePullSecrets", "name"},
      {"resourceClaims", "name"},   {"ports", "containerPort"},  {"volumeMounts", "mountPath"},
      {"volumeDevices", "devicePath"}, {"conditions", "type"},   {"ownerReferences", "uid"},
      {"taints", "key"},            {"addresses", "type"},       {"hostAliases", "ip"},
      {"podIPs", "ip"},             {"hostIPs", "ip"},           {"topologySpreadConstraints", "topologyKey"}};
  auto it = keys.find(field);
  return it == keys.end() ? "" : it->second;
}

namespace {

bool merged_primitive_list(const std::string& field) { return field == "finalizers"; }

const std::string kSetOrder = "$setElementOrder/";
const std::string kDeleteFromList = "$deleteFromPrimitiveList/";

Result<json> merge_value(const std::string& field, const json& original, const json& patch);

Result<json> merge_list(const std::string& field, const json& original, const json& patch) {
  json base = original.is_array() ? original : json::array();
  // A {"$patch":"replace"} element: the rest of the patch list is the new list.
  json items = json::array();
  bool replace = false;
  for (const auto& item : patch) {
    if (item.is_object() && item.value("$patch", "") == "replace") {
      replace = true;
      continue;
    }
    items.push_back(item);
  }
  if (replace) return items;
  std::string key = strategic_merge_key(field);
  if (key.empty()) {
    if (!merged_primitive_list(field)) return items;
    for (const auto& v : items)
      if (std::find(base.begin(), base.end(), v) == base.end()) base.push_back(v);
    return base;
  }
  for (const auto& item : items) {
    if (!item.is_object() || !item.contains(key))
      return make_error("strategic merge patch: an element of " + field + " has no merge key " + key);
    auto same = [&](const json& e) { return e.is_object() && e.contains(key) && e[key] == item[key]; };
    auto it = std::find_if(base.begin(), base.end(), same);
    if (item.value("$patch", "") == "delete") {
      if (it != base.end()) base.erase(it);
      continue;
    }
    if (it == base.end()) {
      auto merged = merge_value(field, json::object(), item);
      if (!merged) return merged;
      base.push_back(*merged);
    } else {
      auto merged = merge_value(field, *it, item);
      if (!merged) return merged;
      *it = *merged;
    }
  }
  return base;
}

// Reorders a merged list as $setElementOrder says; elements it does not name keep their
// relative order after the named ones.
json apply_order(const std::string& field, const json& list, const json& order) {
  if (!list.is_array() || !order.is_array()) return list;
  std::string key = strategic_merge_key(field);
  auto id = [&](const json& e) -> json { return key.empty() ? e : (e.is_object() ? e.value(key, json()) : json()); };
  json named = json::array(), rest = json::array();
  for (const auto& o : order) {
    json want = key.empty() ? o : (o.is_object() ? o.value(key, json()) : json());
    for (const auto& e : list)
      if (id(e) == want) named.push_back(e);
  }
  for (const auto& e : list) {
    bool listed = std::any_of(order.begin(), order.end(), [&](const json& o) {
      return id(e) == (key.empty() ? o : (o.is_object() ? o.value(key, json()) : json()));
    });
    if (!listed) rest.push_back(e);
  }
  for (auto& e : rest) named.push_back(std::move(e));
  return named;
}

Result<json> merge_object(const json& original, const json& patch) {
  if (patch.contains("$patch")) {
    std::string directive = patch["$patch"].is_string() ? patch["$patch"].get<std::string>() : "";
    if (directive == "replace") {
      json out = patch;
      out.erase("$patch");
      return out;
    }
    if (directive == "delete") return json(nullptr);
    if (directive != "merge") return make_error("strategic merge patch: unknown $patch directive '" + directive + "'");
  }
  json out = original.is_object() ? original : json::object();
  std::map<std::string, json> orders;
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    const std::string& k = it.key();
    if (k == "$patch" || k == "$retainKeys") continue;
    if (k.rfind(kSetOrder, 0) == 0) {
      orders[k.substr(kSetOrder.size())] = it.value();
      continue;
    }
    if (k.rfind(kDeleteFromList, 0) == 0) {
      std::string field = k.substr(kDeleteFromList.size());
      if (out.contains(field) && out[field].is_array() && it.value().is_array()) {
        json kept = json::array();
        for (const auto& v : out[field])
          if (std::find(it.value().begin(), it.value().end(), v) == it.value().end()) kept.push_back(v);
        out[field] = kept;
      }
      continue;
    }
    if (it.value().is_null()) {
      out.erase(k);
      continue;
    }
    auto merged = merge_value(k, out.contains(k) ? out[k] : json(), it.value());
    if (!merged) return merged;
    if (merged->is_null()) {
      out.erase(k);
    } else {
      out[k] = std::move(*merged);
    }
  }
  for (const auto& [field, order] : orders)
    if (out.contains(field)) out[field] = apply_order(field, out[field], order);
  if (patch.contains("$retainKeys") && patch["$retainKeys"].is_array()) {
    const auto& keep = patch["$retainKeys"];
    for (auto it = out.begin(); it != out.end();) {
      if (std::find(keep.begin(), keep.end(), json(it.key())) == keep.end()) {
        it = out.erase(it);
      } else {
        ++it;
      }
    }
  }
  return out;
}

Result<json> merge_value(const std::string& field, const json& original, const json& patch) {
  if (patch.is_object()) return merge_object(original, patch);
  if (patch.is_array()) return merge_list(field, original, patch);
  return patch;
}

}  // namespace

Result<json> strategic_merge_patch(const json& original, const json& patch) {
  if (!patch.is_object()) return make_error("strategic merge patch: the patch must be a JSON object");
  return merge_object(original, patch);
}

}  // namespace weft::kube_lite
