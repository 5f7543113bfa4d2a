// The API's semantics over the store: create/get/list/update/patch/delete with the
// real server's checks (namespaces, names, resourceVersion preconditions, status
// subresources, pod spec immutability, dry runs), plus pods/binding and pods/eviction.
#pragma once

#include <memory>
#include <optional>
#include <random>
#include <variant>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/scenario.h"
#include "kube/selector.h"
#include "tools/kube-lite/api_error.h"
#include "tools/kube-lite/auth.h"
#include "tools/kube-lite/list_body.h"
#include "tools/kube-lite/resource_types.h"
#include "tools/kube-lite/store.h"

namespace weft::kube_lite {

// An answer: a status and either a JSON body or prebuilt text (lists).
struct Reply {
  int status = 200;
  nlohmann::json body;
  std::string text;
  std::string retry_after;   // Retry-After header, when set
  std::shared_ptr<const ListBody> list;   // a List, written in parts (list_body.h)
  std::string body_text() const& { return list ? list->text() : text.empty() ? body.dump() : text; }
  std::string body_text() && {
    if (list) return std::exchange(list, nullptr)->text();
    return text.empty() ? body.dump() : std::move(text);
  }
};
Reply error_reply(const ApiError& error);

struct ListParams {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;
  std::string continue_token;
};

// Compiled selectors for lists and watches.
class ObjectFilter {
 public:
  static std::variant<ObjectFilter, ApiError> make(const ResourceType& type, const std::string& ns,
                                                   const std::string& label_selector,
                                                   const std::string& field_selector);
  bool matches(const nlohmann::json& object) const;
  // The value the field selector requires of this field, if it has such a term.
  const std::string* required_field(const std::string& path) const {
    return fields_ ? fields_->required_value(path) : nullptr;
  }

 private:
  std::string ns_;
  std::optional<kube::LabelSelector> labels_;
  std::optional<kube::FieldSelector> fields_;
};

class Registry {
 public:
  Registry(const ResourceTypes& types, Store& store, uint64_t seed = 1);

  const ResourceTypes& types() const { return types_; }
  Store& store() { return store_; }

  Reply get(const ResourceType& type, const std::string& ns, const std::string& name);
  Reply list(const ResourceType& type, const std::string& ns, const ListParams& params);
  Reply create(const User& user, const ResourceType& type, const std::string& ns, nlohmann::json body, bool dry_run);
  Reply update(const User& user, const ResourceType& type, const std::string& ns, const std::string& name,
               const std::string& subresource, const nlohmann::json& body, bool dry_run);
  Reply patch(const User& user, const ResourceType& type, const std::string& ns, const std::string& name,
              const std::string& subresource, const std::string& content_type, const std::string& patch_text,
              bool dry_run);
  Reply remove(const User& user, const ResourceType& type, const std::string& ns, const std::string& name,
               const nlohmann::json& options, bool dry_run);
  Reply bind(const std::string& ns, const std::string& pod, const nlohmann::json& binding, bool dry_run);
  Reply evict(const std::string& ns, const std::string& pod, const nlohmann::json& eviction, bool dry_run);

  // --state: every object with defaults filled in; namespaces that objects use are
  // created. Errors name the source document.
  Status load(std::vector<kube::SourcedObject> objects);
  // Everything (but the built-in namespaces) as a JSON List, loadable by load().
  nlohmann::json dump();

 private:
  std::optional<ApiError> check_namespace(Store::Txn& txn, const ResourceType& type, const std::string& ns);
  std::optional<ApiError> prepare_create(Store::Txn& txn, const ResourceType& type, const std::string& ns,
                                         nlohmann::json& object, bool from_state);
  // The update path shared by PUT and PATCH: returns the reply for (old -> wanted).
  Reply write_update(Store::Txn& txn, const User& user, const ResourceType& type, const std::string& key,
                     const ObjectPtr& old, nlohmann::json wanted, const std::string& subresource, bool dry_run);
  void delete_namespace_contents(Store::Txn& txn, const std::string& ns);
  // The DefaultStorageClass admission plugin, for a claim created without a class.
  void default_claim_class(Store::Txn& txn, nlohmann::json& claim);
  std::string new_uid();
  std::string now() const;

  const ResourceTypes& types_;
  Store& store_;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

}  // namespace weft::kube_lite
