#include "tools/kube-lite/api_error.h"

namespace weft::kube_lite {

using nlohmann::json;

json ApiError::to_status() const {
  json s = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Failure"},
            {"message", message}, {"reason", reason}, {"code", code}};
  if (!details.is_null()) s["details"] = details;
  return s;
}

namespace {
json details_of(const ResourceType& type, const std::string& name) {
  json d = {{"name", name}, {"kind", type.plural}};
  if (!type.group.empty()) d["group"] = type.group;
  return d;
}
}  // namespace

ApiError not_found(const ResourceType& type, const std::string& name) {
  return {404, "NotFound", type.group_resource() + " \"" + name + "\" not found", details_of(type, name)};
}

ApiError already_exists(const ResourceType& type, const std::string& name) {
  return {409, "AlreadyExists", type.group_resource() + " \"" + name + "\" already exists", details_of(type, name)};
}

ApiError conflict(const ResourceType& type, const std::string& name, const std::string& why) {
  return {409, "Conflict",
          "Operation cannot be fulfilled on " + type.group_resource() + " \"" + name + "\": " + why,
          details_of(type, name)};
}

ApiError bad_request(const std::string& message) { return {400, "BadRequest", message, nullptr}; }

ApiError invalid(const ResourceType& type, const std::string& name, const std::string& field,
                 const std::string& detail) {
  json d = details_of(type, name);
  d["kind"] = type.kind;
  d["causes"] = json::array({{{"reason", "FieldValueInvalid"}, {"message", detail}, {"field", field}}});
  return {422, "Invalid", type.kind + " \"" + name + "\" is invalid: " + field + ": " + detail, d};
}

ApiError forbidden(const std::string& message) { return {403, "Forbidden", message, nullptr}; }

ApiError method_not_allowed(const std::string& message) { return {405, "MethodNotAllowed", message, nullptr}; }

ApiError unsupported_media_type(const std::string& content_type) {
  return {415, "UnsupportedMediaType",
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json-patch+json, application/merge-patch+json" +
              std::string(content_type.empty() ? "" : " (got " + content_type + ")"),
          nullptr};
}

ApiError too_many_requests(const std::string& message, int retry_after_seconds) {
  json d = nullptr;
  if (retry_after_seconds > 0) d = {{"retryAfterSeconds", retry_after_seconds}};
  return {429, "TooManyRequests", message, d};
}

ApiError internal_error(const std::string& message) {
  return {500, "InternalError", "Internal error occurred: " + message, nullptr};
}

ApiError gone(const std::string& message) { return {410, "Expired", message, nullptr}; }

ApiError unauthorized() { return {401, "Unauthorized", "Unauthorized", nullptr}; }

json success_status(int code) {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()}, {"status", "Success"},
          {"code", code}};
}

}  // namespace weft::kube_lite
