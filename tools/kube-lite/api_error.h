// API errors as the real server sends them: a meta/v1 Status with reason, message,
// details and code. Thrown nowhere; handlers return them.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tools/kube-lite/resource_types.h"

namespace weft::kube_lite {

struct ApiError {
  int code = 500;
  std::string reason;              // "NotFound", "Conflict", ...
  std::string message;
  nlohmann::json details;          // null or {name, group, kind, causes, retryAfterSeconds}

  nlohmann::json to_status() const;
};

ApiError not_found(const ResourceType& type, const std::string& name);
ApiError already_exists(const ResourceType& type, const std::string& name);
// The message the real server sends on a stale resourceVersion.
ApiError conflict(const ResourceType& type, const std::string& name, const std::string& why);
ApiError bad_request(const std::string& message);
// 422 Invalid: "Pod \"x\" is invalid: field: detail".
ApiError invalid(const ResourceType& type, const std::string& name, const std::string& field,
                 const std::string& detail);
ApiError forbidden(const std::string& message);
ApiError method_not_allowed(const std::string& message);
ApiError unsupported_media_type(const std::string& content_type);
ApiError too_many_requests(const std::string& message, int retry_after_seconds);
ApiError internal_error(const std::string& message);
ApiError gone(const std::string& message);   // 410 Expired (a resourceVersion too old)
ApiError unauthorized();

// {"kind":"Status","status":"Success",...}
nlohmann::json success_status(int code);

}  // namespace weft::kube_lite
