// metricsProviders' Prometheus authToken.secretReference: the bearer token is the Secret's
// key prometheusAuthToken, read through the API every cycle so a rotated token is used.
#pragma once

#include "common/result.h"
#include "descheduler/core/policy.h"
#include "kube/client/client.h"

namespace weft::descheduler {

inline constexpr const char* kPrometheusTokenKey = "prometheusAuthToken";

// Sets auth.bearer_token from auth.token_secret (nothing to do without one). Errors name
// the Secret and what is missing.
Status resolve_prometheus_token(kube::Client& client, PrometheusAuth& auth);

}  // namespace weft::descheduler
