#include "kube/client/client.h"

#include <thread>

#include "kube/client/json_reader.h"
#include "kube/client/list_ahead.h"
#include "kube/client/list_decoder.h"
#include "kube/client/watch_decoder.h"
#include "kube/objects.h"

namespace weft::kube {

using nlohmann::json;

std::string content_type_of(PatchType type) {
  switch (type) {
    case PatchType::Merge: return "application/merge-patch+json";
    case PatchType::StrategicMerge: return "application/strategic-merge-patch+json";
    case PatchType::Json: return "application/json-patch+json";
  }
  return "application/merge-patch+json";
}

Error api_error(const std::string& verb, const std::string& path, const HttpResponse& response) {
  std::string text = verb + " " + path + ": HTTP " + std::to_string(response.status);
  json status = json::parse(response.body, nullptr, false);
  if (status.is_object() && status.value("kind", "") == "Status") {
    std::string reason = status.value("reason", "");
    std::string message = status.value("message", "");
    if (!reason.empty()) text += " " + reason;
    if (!message.empty()) text += ": " + message;
  } else if (!response.body.empty()) {
    std::string body = response.body.substr(0, 200);
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
    text += ": " + body;
  }
  return make_error(text, response.status);
}

namespace {
bool retriable_status(int status, bool retry_429) {
  return (status == 429 && retry_429) || status == 500 || status == 502 || status == 503 || status == 504;
}
bool success(int status) { return status >= 200 && status < 300; }
}  // namespace

Client::Client(std::shared_ptr<Transport> transport, ClientOptions options)
    : transport_(std::move(transport)),
      options_(options),
      bucket_(options.qps, options.burst),
      jitter_(options.jitter_seed) {}

Result<std::unique_ptr<Client>> Client::from_config(const ClientConfig& config, ClientOptions options) {
  auto transport = make_http_transport(config);
  if (!transport) return transport.error();
  return std::make_unique<Client>(std::move(*transport), options);
}

Result<std::unique_ptr<Client>> connect(const std::string& kubeconfig_flag, ClientOptions options) {
  auto config = resolve_config(kubeconfig_flag, current_environment());
  if (!config) return config.error();
  return Client::from_config(*config, options);
}

void Client::set_request_hook(RequestHook hook) {
  std::lock_guard lock(hook_mu_);
  hook_ = std::move(hook);
}

void Client::record(const Call& call, int status, int attempt) {
  requests_.fetch_add(1);
  std::lock_guard lock(hook_mu_);
  if (hook_) hook_(RequestRecord{call.verb, call.path, status, attempt});
}

Millis Client::next_backoff(int attempt) { return backoff_delay(options_.backoff, attempt, jitter_.next()); }

Result<HttpResponse> Client::execute(const Call& call) {
  const auto deadline = Clock::now() + options_.timeout;
  const std::string what = call.verb + " " + call.path;
  Error last = make_error(what + ": not attempted");
  int attempt = 0;
  for (; attempt < std::max(options_.max_attempts, 1); ++attempt) {
    auto now = Clock::now();
    auto wait = bucket_.reserve(now);
    if (now + wait >= deadline) {
      bucket_.cancel_reservation();
      return make_error(what + ": deadline of " + std::to_string(options_.timeout.count()) +
                            "ms exceeded waiting for the client rate limit" +
                            (attempt > 0 ? " (last: " + last.message + ")" : ""),
                        last.code);
    }
    if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);

    HttpRequest request{call.verb, call.path, call.body, call.content_type, call.body_room};
    auto response = transport_->send(request, deadline);
    std::optional<Millis> retry_after;
    if (!response) {
      record(call, 0, attempt);
      last = make_error(what + ": " + response.message(), 0);
    } else {
      record(call, response->status, attempt);
      const bool retry_429 = call.retry_429 && !(call.answer_429 && call.answer_429(*response));
      if (!retriable_status(response->status, retry_429)) return response;
      last = api_error(call.verb, call.path, *response);
      retry_after = parse_retry_after(response->header("retry-after"));
    }
    if (attempt + 1 >= options_.max_attempts) break;
    Millis delay = next_backoff(attempt);
    if (retry_after && *retry_after > delay) delay = *retry_after;
    if (Clock::now() + delay >= deadline) {
      return make_error(last.message + " (gave up after " + std::to_string(attempt + 1) +
                            " attempts: the next retry would pass the " + std::to_string(options_.timeout.count()) +
                            "ms deadline)",
                        last.code);
    }
    std::this_thread::sleep_for(delay);
  }
  return make_error(last.message + " (gave up after " + std::to_string(attempt + 1 > options_.max_attempts
                                                                            ? options_.max_attempts
                                                                            : attempt + 1) +
                        " attempts)",
                    last.code);
}

Result<json> Client::json_call(const Call& call) {
  auto response = execute(call);
  if (!response) return response.error();
  if (!success(response->status)) return api_error(call.verb, call.path, *response);
  auto body = read_json(response->body);   // nlohmann's tree, several times faster than json::parse
  if (!body) {
    return make_error(call.verb + " " + call.path + ": HTTP " + std::to_string(response->status) +
                          ": response is not valid JSON",
                      response->status);
  }
  return std::move(*body);
}

Result<json> Client::get(const ResourceRef& ref, const std::string& ns, const std::string& name) {
  return json_call({"GET", ref.object_path(ns, name), "", ""});
}

Result<ObjectList> Client::list_each(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                                     const std::function<void(json&&)>& on_item) {
  return list_pages(ref, ns, options, [&](const std::string& body) { return decode_list(body, on_item, options.keep); });
}

Result<ObjectList> Client::list_each_raw(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                                         const std::function<void(std::string_view, ObjectIdentity&&)>& on_item) {
  return list_pages(ref, ns, options, [&](const std::string& body) { return decode_list_raw(body, on_item); });
}

Result<ObjectList> Client::list_each_text(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                                          const std::function<void(std::string_view)>& on_item) {
  return ListAhead(*this, ref, ns, options).each_text(on_item);
}

Result<ObjectList> Client::list_pages(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                                      const std::function<Result<ListMeta>(const std::string& body)>& decode) {
  ObjectList page;
  ListOptions current = options;
  bool restarted = false;
  while (true) {
    Call call{"GET", ref.collection_path(ns) + list_query(current), "", ""};
    auto response = execute(call);
    if (!response) return response.error();
    if (response->status == 410 && !current.continue_token.empty() && !restarted) {
      // The continue token expired mid-list: start over in one unpaged request.
      restarted = true;
      current = options;
      current.limit = 0;
      continue;
    }
    if (!success(response->status)) return api_error(call.verb, call.path, *response);
    auto meta = decode(response->body);
    if (!meta) return make_error(call.verb + " " + call.path + ": " + meta.message(), response->status);
    page.resource_version = meta->resource_version;
    if (options.limit <= 0 || meta->continue_token.empty()) return page;
    current.continue_token = meta->continue_token;
  }
}

Result<ObjectList> Client::list(const ResourceRef& ref, const std::string& ns, const ListOptions& options) {
  ObjectList out;
  auto meta = list_each(ref, ns, options, [&](json&& item) { out.items.push_back(std::move(item)); });
  if (!meta) return meta.error();
  out.resource_version = meta->resource_version;
  return out;
}

Result<ObjectList> Client::list_page(const ResourceRef& ref, const std::string& ns, const ListOptions& options) {
  Call call{"GET", ref.collection_path(ns) + list_query(options), "", ""};
  auto response = execute(call);
  if (!response) return response.error();
  if (!success(response->status)) return api_error(call.verb, call.path, *response);
  ObjectList out;
  auto meta = decode_list(response->body, [&](json&& item) { out.items.push_back(std::move(item)); }, options.keep);
  if (!meta) return make_error(call.verb + " " + call.path + ": " + meta.message(), response->status);
  out.resource_version = meta->resource_version;
  out.continue_token = meta->continue_token;
  return out;
}

Result<json> Client::create(const ResourceRef& ref, const std::string& ns, const json& object) {
  return json_call({"POST", ref.collection_path(ns), object.dump(), "application/json"});
}

Result<json> Client::update(const ResourceRef& ref, const json& object) {
  return json_call({"PUT", ref.object_path(namespace_of(object), name_of(object)),
                    object.dump(), "application/json"});
}

Result<json> Client::update_status(const ResourceRef& ref, const json& object) {
  return json_call({"PUT", ref.object_path(namespace_of(object), name_of(object), "status"),
                    object.dump(), "application/json"});
}

Result<json> Client::patch(const ResourceRef& ref, const std::string& ns, const std::string& name, const json& patch,
                           PatchType type, const std::string& subresource) {
  return json_call({"PATCH", ref.object_path(ns, name, subresource), patch.dump(), content_type_of(type)});
}

Result<json> Client::read_modify_write(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                       const Mutation& mutate, const std::string& subresource, int max_conflicts) {
  Error last = make_error("not attempted");
  for (int round = 0; round <= max_conflicts; ++round) {
    auto current = get(ref, ns, name);
    if (!current) return current.error();
    json object = std::move(*current);
    if (auto s = mutate(object); !s) {
      return make_error("PUT " + ref.object_path(ns, name, subresource) + ": mutation refused: " + s.message());
    }
    Call call{"PUT", ref.object_path(ns, name, subresource), object.dump(), "application/json"};
    auto response = execute(call);
    if (!response) return response.error();
    if (response->status == 409) {
      last = api_error(call.verb, call.path, *response);
      continue;  // somebody wrote in between: read again and re-apply
    }
    if (!success(response->status)) return api_error(call.verb, call.path, *response);
    json body = json::parse(response->body, nullptr, false);
    if (body.is_discarded()) return make_error(call.verb + " " + call.path + ": response is not valid JSON");
    return body;
  }
  return make_error(last.message + " (still conflicting after " + std::to_string(max_conflicts + 1) + " rounds)",
                    last.code);
}

Status Client::remove(const ResourceRef& ref, const std::string& ns, const std::string& name, bool ignore_missing) {
  Call call{"DELETE", ref.object_path(ns, name), "", ""};
  auto response = execute(call);
  if (!response) return response.error();
  if (success(response->status) || (ignore_missing && response->status == 404)) return {};
  return api_error(call.verb, call.path, *response);
}

Status Client::bind(const std::string& ns, const std::string& pod, const std::string& node,
                    const std::string& pod_uid) {
  json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", pod}, {"namespace", ns}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  if (!pod_uid.empty()) binding["metadata"]["uid"] = pod_uid;
  auto r = json_call({"POST", resources::pods().object_path(ns, pod, "binding"), binding.dump(), "application/json"});
  if (!r) return r.error();
  return {};
}

namespace {

// The API server refuses an eviction that a PodDisruptionBudget forbids with 429 and a
// "DisruptionBudget" cause; any other 429 is overload (priority and fairness, a rate
// limit) and is retried like one. Servers that omit the cause still say so in the message.
bool is_disruption_budget_refusal(const HttpResponse& response) {
  if (response.status != 429) return false;
  json status = json::parse(response.body, nullptr, false);
  if (!status.is_object()) return false;
  if (status.contains("details") && status["details"].is_object()) {
    for (const auto& cause : status["details"].value("causes", json::array()))
      if (cause.is_object() && cause.value("reason", "") == "DisruptionBudget") return true;
  }
  return status.value("message", "").find("disruption budget") != std::string::npos;
}

}  // namespace

Result<EvictionResult> Client::evict(const std::string& ns, const std::string& pod, int64_t grace_seconds) {
  json eviction = {{"apiVersion", "policy/v1"}, {"kind", "Eviction"}, {"metadata", {{"name", pod}, {"namespace", ns}}}};
  if (grace_seconds >= 0) eviction["deleteOptions"] = {{"gracePeriodSeconds", grace_seconds}};
  Call call{"POST", resources::pods().object_path(ns, pod, "eviction"), eviction.dump(), "application/json"};
  call.answer_429 = is_disruption_budget_refusal;
  auto response = execute(call);
  if (!response) return response.error();
  EvictionResult result;
  if (success(response->status)) return result;
  if (is_disruption_budget_refusal(*response) || response->status == 404) {
    result.outcome = response->status == 429 ? EvictionResult::Outcome::Blocked : EvictionResult::Outcome::NotFound;
    json status = json::parse(response->body, nullptr, false);
    result.message = status.is_object() ? status.value("message", "") : "";
    return result;
  }
  return api_error(call.verb, call.path, *response);
}

Result<WatchEnd> Client::watch(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                               const std::function<bool(WatchEvent&&)>& on_event, CancelToken* cancel) {
  const std::string path = ref.collection_path(ns) + watch_query(options, true);
  Call call{"GET", path, "", ""};
  auto wait = bucket_.reserve(Clock::now());
  if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);

  WatchEnd end;
  end.resource_version = options.resource_version;
  WatchDecoder decoder(options.keep, options.raw);
  std::optional<Error> failure;
  bool handler_stopped = false;
  auto on_chunk = [&](std::string_view chunk) {
    bool keep_going = decoder.feed(chunk, [&](WatchEvent&& event) -> bool {
      if (event.type == "ERROR") {
        int code = event.object.value("code", 0);
        failure = make_error("GET " + path + ": watch ERROR event: HTTP " + std::to_string(code) + " " +
                                 event.object.value("reason", "") + ": " + event.object.value("message", ""),
                             code);
        return false;
      }
      std::string rv = event.identity.resource_version;
      if (!options.raw && event.object.contains("metadata"))
        rv = event.object["metadata"].value("resourceVersion", "");
      if (!rv.empty()) end.resource_version = rv;
      if (event.type != "BOOKMARK") ++end.events;
      if (!on_event(std::move(event))) {
        handler_stopped = true;
        return false;
      }
      return true;
    });
    if (!decoder.error().empty()) {
      failure = make_error("GET " + path + ": bad watch event: " + decoder.error());
      return false;
    }
    return keep_going;
  };
  Millis idle = options.timeout_seconds > 0 ? Millis((options.timeout_seconds + 30) * 1000) : Millis(330000);
  auto response = transport_->stream(HttpRequest{"GET", path, "", ""}, idle, on_chunk, cancel);
  record(call, response ? response->status : 0, 0);
  if (!response) return make_error("GET " + path + ": " + response.message(), response.error().code);
  if (!success(response->status)) return api_error("GET", path, *response);
  if (failure) return *failure;
  auto stream_error = response->header("x-weft-stream-error");
  end.reason = handler_stopped ? "handler stopped" : !stream_error.empty() ? "stream error: " + stream_error
                                                                          : "closed by server";
  return end;
}

}  // namespace weft::kube
