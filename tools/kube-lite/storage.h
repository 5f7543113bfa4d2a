// The storage kinds as the real API server checks them: PersistentVolume,
// PersistentVolumeClaim (v1), StorageClass, CSINode, CSIDriver (storage.k8s.io/v1) —
// their defaults on create, the required fields, and the fields the API makes immutable.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/kube-lite/api_error.h"
#include "tools/kube-lite/resource_types.h"

namespace weft::kube_lite {

struct FieldError {
  std::string field;    // "spec.accessModes"
  std::string detail;   // "Required value"
};

bool is_storage_type(const ResourceType& type);
// Defaults the API server fills in on create (spec, and status.phase Pending for PVs and
// claims created through the API).
void default_storage_object(const ResourceType& type, nlohmann::json& object, bool from_state);
std::vector<FieldError> validate_storage_object(const ResourceType& type, const nlohmann::json& object);
// A write of the main resource (not status) from `before` to `after`.
std::vector<FieldError> validate_storage_update(const ResourceType& type, const nlohmann::json& before,
                                                const nlohmann::json& after);
// The real server's 422 for one or more field errors: `Kind "name" is invalid: [a: x, b: y]`.
ApiError invalid_fields(const ResourceType& type, const std::string& name, const std::vector<FieldError>& errors);

// The DefaultStorageClass admission plugin: the class a claim without
// spec.storageClassName gets (the newest of those annotated as default), or "".
inline constexpr const char* kDefaultClassAnnotation = "storageclass.kubernetes.io/is-default-class";

}  // namespace weft::kube_lite
