#include "descheduler/app/prometheus_token.h"

#include "kube/client/base64.h"

namespace weft::descheduler {

Status resolve_prometheus_token(kube::Client& client, PrometheusAuth& auth) {
  if (!auth.token_secret) return {};
  const SecretReference& ref = *auth.token_secret;
  std::string what = "Prometheus auth token Secret " + ref.ns + "/" + ref.name;
  auto secret = client.get(kube::ResourceRef{"", "v1", "secrets", true}, ref.ns, ref.name);
  if (!secret) return wrap(secret.error(), what);
  const auto& data = secret->value("data", nlohmann::json::object());
  auto it = data.find(kPrometheusTokenKey);
  if (it == data.end() || !it->is_string()) return make_error(what + ": has no data." + kPrometheusTokenKey);
  auto token = kube::base64_decode(it->get<std::string>());
  if (!token) return make_error(what + ": data." + kPrometheusTokenKey + ": " + token.message());
  if (token->empty()) return make_error(what + ": data." + kPrometheusTokenKey + " is empty");
  auth.bearer_token = *token;
  return {};
}

}  // namespace weft::descheduler
