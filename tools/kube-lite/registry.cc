#include "tools/kube-lite/registry.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "kube/client/base64.h"
#include "kube/objects.h"
#include "kube/selector.h"
#include "kube/time.h"
#include "tools/kube-lite/disruption.h"
#include "tools/kube-lite/patch.h"
#include "tools/kube-lite/pod_defaults.h"
#include "tools/kube-lite/storage.h"

namespace weft::kube_lite {

using nlohmann::json;

namespace {

// Indexed as the real API server's watch cache does: kubelets, schedulers and
// descheduler lists ask for one node's pods.
const std::string kPodNodeField = "spec.nodeName";

const std::set<std::string> kBuiltinNamespaces = {"default", "kube-system", "kube-public", "kube-node-lease"};

std::string rv_of(const json& obj) {
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) return "";
  const auto& m = obj["metadata"];
  return m.contains("resourceVersion") && m["resourceVersion"].is_string() ? m["resourceVersion"].get<std::string>()
                                                                            : "";
}

const std::string kStale = "the object has been modified; please apply your changes to the latest version and try again";

std::vector<std::string> supported_fields(const ResourceType& type) {
  std::vector<std::string> f = {"metadata.name", "metadata.namespace"};
  if (type.plural == "pods" && type.group.empty()) {
    for (const char* x : {"spec.nodeName", "spec.schedulerName", "status.phase", "spec.serviceAccountName",
                          "status.podIP", "status.nominatedNodeName", "spec.restartPolicy"})
      f.push_back(x);
  } else if (type.plural == "nodes") {
    f.push_back("spec.unschedulable");
  } else if (type.plural == "namespaces") {
    f.push_back("status.phase");
  } else if (type.plural == "events") {
    for (const char* x : {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                          "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
                          "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type", "regarding.kind",
                          "regarding.name", "regarding.namespace"})
      f.push_back(x);
  }
  return f;
}

std::optional<ApiError> check_field_labels(const ResourceType& type, const std::string& selector) {
  auto allowed = supported_fields(type);
  size_t start = 0;
  while (start < selector.size()) {
    size_t end = selector.find(',', start);
    if (end == std::string::npos) end = selector.size();
    std::string term = selector.substr(start, end - start);
    size_t op = term.find_first_of("!=");
    std::string key = term.substr(0, op);
    if (!key.empty() && std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      return bad_request("field label not supported: " + key);
    start = end + 1;
  }
  return std::nullopt;
}

struct ContinueToken {
  uint64_t rv = 0;
  std::string start;
};

std::string encode_continue(const ContinueToken& t) {
  return kube::base64_encode(json{{"v", "kube-lite/1"}, {"rv", t.rv}, {"start", t.start}}.dump());
}

std::optional<ContinueToken> decode_continue(const std::string& text) {
  auto raw = kube::base64_decode(text);
  if (!raw) return std::nullopt;
  auto j = json::parse(*raw, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("rv") || !j.contains("start") || !j["start"].is_string())
    return std::nullopt;
  return ContinueToken{j["rv"].get<uint64_t>(), j["start"].get<std::string>()};
}

std::string random_suffix(std::mt19937_64& rng) {
  static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string s;
  for (int i = 0; i < 5; ++i) s += alphabet[rng() % (sizeof(alphabet) - 1)];
  return s;
}

json strip_rv(json obj) {
  if (obj.contains("metadata") && obj["metadata"].is_object()) obj["metadata"].erase("resourceVersion");
  return obj;
}

}  // namespace

Reply error_reply(const ApiError& error) {
  Reply r;
  r.status = error.code;
  r.body = error.to_status();
  if (error.code == 429 && error.details.is_object() && error.details.contains("retryAfterSeconds"))
    r.retry_after = std::to_string(error.details["retryAfterSeconds"].get<int>());
  return r;
}

std::variant<ObjectFilter, ApiError> ObjectFilter::make(const ResourceType& type, const std::string& ns,
                                                        const std::string& label_selector,
                                                        const std::string& field_selector) {
  ObjectFilter f;
  f.ns_ = ns;
  if (!label_selector.empty()) {
    auto sel = kube::LabelSelector::parse(label_selector);
    if (!sel) return bad_request("unable to parse requirement: " + sel.message());
    f.labels_ = *sel;
  }
  if (!field_selector.empty()) {
    if (auto e = check_field_labels(type, field_selector)) return *e;
    auto sel = kube::FieldSelector::parse(field_selector);
    if (!sel) return bad_request("invalid field selector: " + sel.message());
    f.fields_ = *sel;
  }
  return f;
}

bool ObjectFilter::matches(const json& object) const {
  if (!ns_.empty() && kube::namespace_of(object) != ns_) return false;
  if (labels_ && !labels_->matches(kube::labels_of(object))) return false;
  if (fields_ && !fields_->matches(object)) return false;
  return true;
}

Registry::Registry(const ResourceTypes& types, Store& store, uint64_t seed) : types_(types), store_(store), rng_(seed) {
  store_.add_index(types_.pods().id, kPodNodeField);
  auto txn = store_.begin();
  for (const auto& ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    json obj = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
    prepare_create(txn, types_.namespaces(), "", obj, true);
    txn.load(types_.namespaces().id, ns, std::move(obj));
  }
}

std::string Registry::new_uid() {
  std::lock_guard lock(rng_mu_);
  uint64_t a = rng_(), b = rng_();
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

void Registry::default_claim_class(Store::Txn& txn, json& claim) {
  json& spec = claim["spec"];
  if (!spec.is_object()) return;
  const json& annotations = claim["metadata"].value("annotations", json::object());
  if ((spec.contains("storageClassName") && !spec["storageClassName"].is_null()) ||
      annotations.contains("volume.beta.kubernetes.io/storage-class"))
    return;
  // The newest default class wins, as the DefaultStorageClass admission plugin chooses.
  std::string chosen, chosen_created;
  const auto* classes = types_.find("storage.k8s.io", "v1", "storageclasses");
  txn.scan(classes->id, "", "", [&](const std::string& name, const ObjectPtr& sc) {
    const json& md = sc->value["metadata"];
    const json ann = md.value("annotations", json::object());
    if (ann.value(kDefaultClassAnnotation, "") != "true") return true;
    std::string created = md.value("creationTimestamp", "");
    if (chosen.empty() || created > chosen_created || (created == chosen_created && name < chosen))
      chosen = name, chosen_created = created;
    return true;
  });
  if (!chosen.empty()) spec["storageClassName"] = chosen;
}

std::string Registry::now() const { return kube::format_rfc3339(std::chrono::system_clock::now()); }

Reply Registry::get(const ResourceType& type, const std::string& ns, const std::string& name) {
  auto txn = store_.begin();
  auto obj = txn.get(type.id, object_key(type.namespaced ? ns : "", name));
  if (!obj) return error_reply(not_found(type, name));
  Reply r;
  r.text = obj->text;
  return r;
}

Reply Registry::list(const ResourceType& type, const std::string& ns, const ListParams& params) {
  auto filter = ObjectFilter::make(type, type.namespaced ? ns : "", params.label_selector, params.field_selector);
  if (auto* e = std::get_if<ApiError>(&filter)) return error_reply(*e);
  const auto& f = std::get<ObjectFilter>(filter);
  ContinueToken from;
  if (!params.continue_token.empty()) {
    auto t = decode_continue(params.continue_token);
    if (!t) return error_reply(bad_request("continue key is not valid: " + params.continue_token));
    from = *t;
  }
  std::string prefix = type.namespaced && !ns.empty() ? ns + "/" : "";
  // The items are gathered under the lock and written after it (list_body.h).
  std::vector<ObjectPtr> items;
  std::string last_key;
  bool more = false;
  uint64_t rv;
  {
    auto txn = store_.begin();
    rv = from.rv ? from.rv : txn.resource_version();
    auto take = [&](const std::string& key, const ObjectPtr& obj) {
      if (!f.matches(obj->value)) return true;
      if (params.limit > 0 && items.size() == static_cast<size_t>(params.limit)) {
        more = true;
        return false;
      }
      items.push_back(obj);
      last_key = key;
      return true;
    };
    const std::string* node = f.required_field(kPodNodeField);
    if (!node || !txn.scan_index(type.id, kPodNodeField, *node, prefix, from.start, take))
      txn.scan(type.id, prefix, from.start, take);
  }
  auto body = std::make_shared<ListBody>();
  body->head = "{\"kind\":\"" + type.kind + "List\",\"apiVersion\":\"" + type.api_version() +
               "\",\"metadata\":{\"resourceVersion\":\"" + std::to_string(rv) + "\"";
  if (more) body->head += ",\"continue\":" + json(encode_continue({rv, last_key})).dump();
  body->head += "},\"items\":[";
  body->items = std::move(items);
  Reply r;
  r.list = std::move(body);
  return r;
}

std::optional<ApiError> Registry::check_namespace(Store::Txn& txn, const ResourceType& type, const std::string& ns) {
  if (!type.namespaced) return std::nullopt;
  if (ns.empty()) return bad_request("the server could not find the requested resource: a namespace is required");
  auto obj = txn.get(types_.namespaces().id, ns);
  if (!obj) return not_found(types_.namespaces(), ns);
  if (obj->value.contains("metadata") && obj->value["metadata"].contains("deletionTimestamp"))
    return forbidden(type.plural + " is forbidden: unable to create new content in namespace " + ns +
                     " because it is being terminated");
  return std::nullopt;
}

std::optional<ApiError> Registry::prepare_create(Store::Txn& txn, const ResourceType& type, const std::string& ns,
                                                 json& obj, bool from_state) {
  auto& meta = obj["metadata"];
  if (type.namespaced) {
    meta["namespace"] = ns;
  } else {
    meta.erase("namespace");
  }
  obj["apiVersion"] = type.api_version();
  obj["kind"] = type.kind;
  if (!from_state || !meta.contains("uid")) meta["uid"] = new_uid();
  if (!from_state || !meta.contains("creationTimestamp")) meta["creationTimestamp"] = now();
  meta.erase("resourceVersion");
  if (!from_state) {
    meta.erase("deletionTimestamp");
    meta.erase("managedFields");
  }
  if (type.custom || type.plural == "poddisruptionbudgets") meta["generation"] = 1;
  const std::string name = meta.value("name", "");
  if (type.plural == "namespaces") {
    obj["status"] = {{"phase", "Active"}};
    obj["spec"] = {{"finalizers", {"kubernetes"}}};
    if (!meta.contains("labels")) meta["labels"] = json::object();
    meta["labels"]["kubernetes.io/metadata.name"] = name;
  }
  if (type.has_status && !from_state && type.plural != "nodes" && type.plural != "namespaces") obj.erase("status");
  if (is_storage_type(type)) {
    if (type.plural == "persistentvolumeclaims" && !from_state) default_claim_class(txn, obj);
    default_storage_object(type, obj, from_state);
    if (auto errors = validate_storage_object(type, obj); !errors.empty()) return invalid_fields(type, name, errors);
  }
  if (&type == &types_.pods()) {
    if (!obj.contains("spec") || !obj["spec"].is_object() || !obj["spec"].contains("containers") ||
        !obj["spec"]["containers"].is_array() || obj["spec"]["containers"].empty())
      return invalid(type, name, "spec.containers", "Required value");
    for (const auto& c : obj["spec"]["containers"])
      if (!c.is_object() || c.value("name", "").empty())
        return invalid(type, name, "spec.containers[].name", "Required value");
    if (from_state && obj["spec"].value("priorityClassName", "").empty() && obj["spec"].contains("priority")) {
      // explicit priority in a scenario stands
    } else {
      std::string cls = obj["spec"].value("priorityClassName", "");
      const auto& pcs = types_.priority_classes();
      if (!cls.empty()) {
        auto pc = txn.get(pcs.id, cls);
        if (pc) {
          obj["spec"]["priority"] = pc->value.value("value", 0);
        } else if (!from_state) {
          return forbidden("pods \"" + name + "\" is forbidden: no PriorityClass with name " + cls + " was found");
        }
      } else if (!obj["spec"].contains("priority")) {
        int64_t priority = 0;
        txn.scan(pcs.id, "", "", [&](const std::string&, const ObjectPtr& pc) {
          if (pc->value.value("globalDefault", false)) {
            priority = pc->value.value("value", 0);
            obj["spec"]["priorityClassName"] = pc->value["metadata"].value("name", "");
            return false;
          }
          return true;
        });
        obj["spec"]["priority"] = priority;
      }
    }
    default_pod_spec(obj["spec"]);
    if (!from_state || !obj.contains("status")) obj["status"] = {{"phase", "Pending"}};
    obj["status"]["qosClass"] = qos_class(obj["spec"]);
  }
  return std::nullopt;
}

Reply Registry::create(const User&, const ResourceType& type, const std::string& ns, json obj, bool dry_run) {
  if (!obj.is_object()) return error_reply(bad_request("the body of the request must be a JSON object"));
  if (obj.contains("kind") && obj["kind"] != type.kind)
    return error_reply(bad_request("the kind in the data (" + obj["kind"].dump() + ") does not match the expected kind (" +
                                   type.kind + ")"));
  if (obj.contains("apiVersion") && obj["apiVersion"] != type.api_version())
    return error_reply(bad_request("the API version in the data (" + obj["apiVersion"].dump() +
                                   ") does not match the expected API version (" + type.api_version() + ")"));
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) obj["metadata"] = json::object();
  auto& meta = obj["metadata"];
  if (type.namespaced && meta.contains("namespace") && meta["namespace"].is_string() &&
      !meta["namespace"].get<std::string>().empty() && meta["namespace"] != ns)
    return error_reply(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
  std::string name = meta.value("name", "");
  auto txn = store_.begin();
  if (name.empty()) {
    std::string generate = meta.value("generateName", "");
    if (generate.empty())
      return error_reply(invalid(type, "", "metadata.name", "Required value: name or generateName is required"));
    for (int i = 0; i < 16; ++i) {
      std::lock_guard lock(rng_mu_);
      name = generate + random_suffix(rng_);
      if (!txn.get(type.id, object_key(type.namespaced ? ns : "", name))) break;
    }
    meta["name"] = name;
  }
  if (auto e = check_namespace(txn, type, ns)) return error_reply(*e);
  std::string key = object_key(type.namespaced ? ns : "", name);
  if (txn.get(type.id, key)) return error_reply(already_exists(type, name));
  if (auto e = prepare_create(txn, type, ns, obj, false)) return error_reply(*e);
  Reply r;
  r.status = 201;
  if (dry_run) {
    r.body = std::move(obj);
    return r;
  }
  r.text = txn.put(type.id, key, std::move(obj))->text;
  return r;
}

Reply Registry::write_update(Store::Txn& txn, const User& user, const ResourceType& type, const std::string& key,
                             const ObjectPtr& old, json wanted, const std::string& subresource, bool dry_run) {
  const json& before = old->value;
  const std::string name = before["metadata"].value("name", "");
  if (!wanted.is_object()) return error_reply(bad_request("the object must be a JSON object"));
  json obj;
  if (subresource == "status") {
    obj = before;
    if (wanted.contains("status")) {
      obj["status"] = wanted["status"];
    } else {
      obj.erase("status");
    }
  } else {
    obj = std::move(wanted);
    if (type.has_status) {
      if (before.contains("status")) {
        obj["status"] = before["status"];
      } else {
        obj.erase("status");
      }
    }
  }
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) obj["metadata"] = json::object();
  auto& meta = obj["metadata"];
  for (const char* f : {"name", "namespace", "uid", "creationTimestamp", "deletionTimestamp"}) {
    if (before["metadata"].contains(f)) {
      meta[f] = before["metadata"][f];
    } else {
      meta.erase(f);
    }
  }
  meta["resourceVersion"] = before["metadata"]["resourceVersion"];
  obj["apiVersion"] = type.api_version();
  obj["kind"] = type.kind;
  if (&type == &types_.pods() && subresource != "status") {
    if (!obj.contains("spec") || !obj["spec"].is_object()) obj["spec"] = json::object();
    default_pod_spec(obj["spec"]);
    if (auto why = pod_spec_update_forbidden(before.value("spec", json::object()), obj["spec"]))
      return error_reply(invalid(type, name, "spec", "Forbidden: " + *why));
  }
  if (before["metadata"].contains("generation")) {
    int64_t gen = before["metadata"].value("generation", int64_t{1});
    bool spec_changed = before.value("spec", json()) != obj.value("spec", json());
    meta["generation"] = spec_changed ? gen + 1 : gen;
  }
  if (is_storage_type(type) && subresource != "status") {
    default_storage_object(type, obj, /*from_state=*/true);
    if (auto errors = validate_storage_update(type, before, obj); !errors.empty())
      return error_reply(invalid_fields(type, name, errors));
  }
  if (&type == &types_.nodes())
    if (auto e = admit_node_change(user, before, obj)) return error_reply(*e);
  Reply r;
  if (obj == before) {  // nothing changed: no new version, no event, as the real server
    r.text = old->text;
    return r;
  }
  if (dry_run) {
    r.body = std::move(obj);
    return r;
  }
  r.text = txn.put(type.id, key, std::move(obj))->text;
  return r;
}

Reply Registry::update(const User& user, const ResourceType& type, const std::string& ns, const std::string& name,
                       const std::string& subresource, const json& body, bool dry_run) {
  if (!body.is_object()) return error_reply(bad_request("the body of the request must be a JSON object"));
  if (body.contains("kind") && body["kind"] != type.kind)
    return error_reply(bad_request("the kind in the data (" + body["kind"].dump() + ") does not match the expected kind (" +
                                   type.kind + ")"));
  const json meta = body.value("metadata", json::object());
  if (meta.value("name", "") != name)
    return error_reply(bad_request("the name of the object (" + meta.value("name", "") +
                                   ") does not match the name on the URL (" + name + ")"));
  if (type.namespaced && meta.contains("namespace") && meta["namespace"].is_string() &&
      !meta["namespace"].get<std::string>().empty() && meta["namespace"] != ns)
    return error_reply(bad_request("the namespace of the provided object does not match the namespace sent on the request"));
  auto txn = store_.begin();
  std::string key = object_key(type.namespaced ? ns : "", name);
  auto old = txn.get(type.id, key);
  if (!old) return error_reply(not_found(type, name));
  std::string want_rv = rv_of(body);
  if (!want_rv.empty() && want_rv != rv_of(old->value)) return error_reply(conflict(type, name, kStale));
  return write_update(txn, user, type, key, old, body, subresource, dry_run);
}

Reply Registry::patch(const User& user, const ResourceType& type, const std::string& ns, const std::string& name,
                      const std::string& subresource, const std::string& content_type, const std::string& patch_text,
                      bool dry_run) {
  PatchFormat format = patch_format(content_type);
  if (format == PatchFormat::Unknown || format == PatchFormat::Apply ||
      (format == PatchFormat::StrategicMerge && type.custom))
    return error_reply(unsupported_media_type(content_type));
  json patch = json::parse(patch_text, nullptr, false);
  if (patch.is_discarded()) return error_reply(bad_request("the body of the request could not be decoded as JSON"));
  auto txn = store_.begin();
  std::string key = object_key(type.namespaced ? ns : "", name);
  auto old = txn.get(type.id, key);
  if (!old) return error_reply(not_found(type, name));
  json patched;
  if (format == PatchFormat::Merge) {
    if (!patch.is_object()) return error_reply(bad_request("a merge patch must be a JSON object"));
    patched = merge_patch(old->value, patch);
  } else {
    auto r = format == PatchFormat::Json ? json_patch(old->value, patch) : strategic_merge_patch(old->value, patch);
    if (!r) return error_reply(format == PatchFormat::Json ? ApiError{422, "Invalid", r.message(), nullptr}
                                                           : bad_request(r.message()));
    patched = std::move(*r);
  }
  std::string want_rv = rv_of(patched);
  if (!want_rv.empty() && want_rv != rv_of(old->value)) return error_reply(conflict(type, name, kStale));
  return write_update(txn, user, type, key, old, std::move(patched), subresource, dry_run);
}

void Registry::delete_namespace_contents(Store::Txn& txn, const std::string& ns) {
  for (const auto& t : types_.all()) {
    if (!t.namespaced) continue;
    std::vector<std::string> keys;
    txn.scan(t.id, ns + "/", "", [&](const std::string& key, const ObjectPtr&) {
      keys.push_back(key);
      return true;
    });
    for (const auto& k : keys) txn.erase(t.id, k);
  }
}

Reply Registry::remove(const User&, const ResourceType& type, const std::string& ns, const std::string& name,
                       const json& options, bool dry_run) {
  auto txn = store_.begin();
  std::string key = object_key(type.namespaced ? ns : "", name);
  auto old = txn.get(type.id, key);
  if (!old) return error_reply(not_found(type, name));
  if (&type == &types_.namespaces() && kBuiltinNamespaces.count(name))
    return error_reply(forbidden("namespaces \"" + name + "\" is forbidden: this namespace may not be deleted"));
  if (options.is_object() && options.contains("preconditions") && options["preconditions"].is_object()) {
    const auto& pre = options["preconditions"];
    std::string uid = old->value["metadata"].value("uid", "");
    if (pre.contains("uid") && pre["uid"].is_string() && pre["uid"] != uid)
      return error_reply(conflict(type, name,
                                  "Precondition failed: UID in precondition: " + pre["uid"].get<std::string>() +
                                      ", UID in object meta: " + uid));
    if (pre.contains("resourceVersion") && pre["resourceVersion"].is_string() &&
        pre["resourceVersion"] != rv_of(old->value))
      return error_reply(conflict(type, name,
                                  "Precondition failed: ResourceVersion in precondition: " +
                                      pre["resourceVersion"].get<std::string>() +
                                      ", ResourceVersion in object meta: " + rv_of(old->value)));
  }
  Reply r;
  if (dry_run) {
    r.text = old->text;
    return r;
  }
  if (&type == &types_.namespaces()) delete_namespace_contents(txn, name);
  r.text = txn.erase(type.id, key)->text;
  return r;
}

Reply Registry::bind(const std::string& ns, const std::string& pod_name, const json& binding, bool dry_run) {
  const auto& pods = types_.pods();
  if (!binding.is_object() || !binding.contains("target") || !binding["target"].is_object() ||
      binding["target"].value("name", "").empty())
    return error_reply(invalid(pods, pod_name, "target.name", "Required value"));
  const std::string key = object_key(ns, pod_name);
  ResourceType binding_type = pods;
  binding_type.plural = "pods/binding";
  // The bound pod is built outside the store's lock (a copy of the whole pod), then
  // written only if the pod is still the one it was built from; else built again from
  // the new one, whose checks may now refuse.
  for (;;) {
    ObjectPtr old;
    {
      auto txn = store_.begin();
      old = txn.get(pods.id, key);
    }
    if (!old) return error_reply(not_found(pods, pod_name));
    const json& pod = old->value;
    std::string want_uid = binding.value("metadata", json::object()).value("uid", "");
    if (!want_uid.empty() && want_uid != pod["metadata"].value("uid", ""))
      return error_reply(conflict(binding_type, pod_name,
                                  "Precondition failed: UID in precondition: " + want_uid +
                                      ", UID in object meta: " + pod["metadata"].value("uid", "")));
    if (pod["metadata"].contains("deletionTimestamp"))
      return error_reply(conflict(binding_type, pod_name,
                                  "pod " + pod_name + " is being deleted, cannot be assigned to a host"));
    std::string bound = pod.value("spec", json::object()).value("nodeName", "");
    if (!bound.empty())
      return error_reply(
          conflict(binding_type, pod_name, "pod " + pod_name + " is already assigned to node \"" + bound + "\""));
    json obj = pod;
    obj["spec"]["nodeName"] = binding["target"]["name"];
    auto& conditions = obj["status"]["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    conditions.erase(std::remove_if(conditions.begin(), conditions.end(),
                                    [](const json& c) { return c.value("type", "") == "PodScheduled"; }),
                     conditions.end());
    conditions.push_back({{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", now()}});
    if (!dry_run) {
      auto txn = store_.begin();
      if (txn.get(pods.id, key) != old) continue;
      txn.put(pods.id, key, std::move(obj));
    }
    Reply r;
    r.status = 201;
    r.body = success_status(201);
    return r;
  }
}

Reply Registry::evict(const std::string& ns, const std::string& pod_name, const json& eviction, bool dry_run) {
  const auto& pods = types_.pods();
  const auto& pdbs = types_.pdbs();
  if (eviction.is_object() && eviction.contains("metadata") && eviction["metadata"].contains("name") &&
      eviction["metadata"]["name"] != pod_name)
    return error_reply(bad_request("name in URL does not match name in Eviction object"));
  auto txn = store_.begin();
  std::string key = object_key(ns, pod_name);
  auto old = txn.get(pods.id, key);
  if (!old) return error_reply(not_found(pods, pod_name));
  const json& pod = old->value;
  std::string phase = pod.value("status", json::object()).value("phase", "");
  bool ignore_budget = phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
                       pod["metadata"].contains("deletionTimestamp");
  Reply ok;
  ok.status = 201;
  ok.body = success_status(201);
  if (!ignore_budget) {
    std::vector<ObjectPtr> budgets;
    std::optional<ApiError> selector_error;
    txn.scan(pdbs.id, ns + "/", "", [&](const std::string&, const ObjectPtr& pdb) {
      auto selects = budget_selects(pdb->value, pod);
      if (!selects) {
        selector_error = internal_error("PodDisruptionBudget " + pdb->value["metadata"].value("name", "") +
                                        ": spec.selector: " + selects.message());
        return false;
      }
      if (*selects) budgets.push_back(pdb);
      return true;
    });
    if (selector_error) return error_reply(*selector_error);
    if (budgets.size() > 1)
      return error_reply(internal_error(
          "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."));
    if (budgets.size() == 1) {
      const auto& pdb = budgets.front();
      std::vector<json> in_namespace;
      txn.scan(pods.id, ns + "/", "", [&](const std::string&, const ObjectPtr& p) {
        in_namespace.push_back(p->value);
        return true;
      });
      auto status = compute_disruption(pdb->value, in_namespace);
      std::string pdb_name = pdb->value["metadata"].value("name", "");
      if (!status) return error_reply(internal_error("PodDisruptionBudget " + pdb_name + ": " + status.message()));
      int64_t generation = pdb->value["metadata"].value("generation", int64_t{1});
      bool allowed = status->disruptions_allowed > 0;
      // Keep the budget's status as the disruption controller would (after this eviction).
      DisruptionStatus after = *status;
      if (allowed) {
        --after.current_healthy;
        after.disruptions_allowed = std::max(0, after.current_healthy - after.desired_healthy);
      }
      json pdb_obj = pdb->value;
      pdb_obj["status"] = after.to_status(generation);
      if (!dry_run && pdb_obj != pdb->value) {
        pdb_obj["metadata"].erase("resourceVersion");
        txn.put(pdbs.id, object_key(ns, pdb_name), std::move(pdb_obj));
      }
      if (!allowed) {
        ApiError e = too_many_requests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
        e.details = {{"causes", json::array({{{"reason", "DisruptionBudget"},
                                              {"message", "The disruption budget " + pdb_name + " needs " +
                                                              std::to_string(status->desired_healthy) +
                                                              " healthy pods and has " +
                                                              std::to_string(status->current_healthy) +
                                                              " currently"}}})}};
        return error_reply(e);
      }
    }
  }
  if (!dry_run) txn.erase(pods.id, key);
  return ok;
}

Status Registry::load(std::vector<kube::SourcedObject> objects) {
  auto txn = store_.begin();
  // Namespaces and priority classes first: other objects refer to them.
  auto rank = [](const json& o) {
    std::string kind = o.value("kind", "");
    return kind == "Namespace" ? 0 : kind == "PriorityClass" ? 1 : 2;
  };
  std::vector<std::pair<int, kube::SourcedObject*>> ordered;
  ordered.reserve(objects.size());
  for (auto& o : objects) ordered.emplace_back(rank(o.object), &o);
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& entry : ordered) {
    kube::SourcedObject* so = entry.second;
    json& obj = so->object;  // moved into the store below: big states are not copied
    const auto* type = types_.find_kind(obj.value("apiVersion", ""), obj.value("kind", ""));
    if (!type)
      return make_error(so->where() + ": kube-lite does not serve apiVersion " + obj.value("apiVersion", "") +
                        " kind " + obj.value("kind", ""));
    std::string ns = type->namespaced ? obj["metadata"].value("namespace", "default") : "";
    if (ns.empty()) ns = "default";
    if (type->namespaced && !txn.get(types_.namespaces().id, ns)) {
      json nsobj = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
      prepare_create(txn, types_.namespaces(), "", nsobj, true);
      txn.load(types_.namespaces().id, ns, std::move(nsobj));
    }
    std::string name = obj["metadata"].value("name", "");
    std::string key = object_key(type->namespaced ? ns : "", name);
    if (txn.get(type->id, key) && !(type == &types_.namespaces() && kBuiltinNamespaces.count(name)))
      return make_error(so->where() + ": duplicate " + type->kind + " " + key);
    if (auto e = prepare_create(txn, *type, ns, obj, true)) return make_error(so->where() + ": " + e->message);
    txn.load(type->id, key, std::move(obj));
    obj = nullptr;
  }
  return {};
}

json Registry::dump() {
  json items = json::array();
  auto txn = store_.begin();
  for (const auto& t : types_.all()) {
    txn.scan(t.id, "", "", [&](const std::string& key, const ObjectPtr& obj) {
      if (&t == &types_.namespaces() && kBuiltinNamespaces.count(key)) return true;
      items.push_back(strip_rv(obj->value));
      return true;
    });
  }
  return {{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
}

}  // namespace weft::kube_lite
