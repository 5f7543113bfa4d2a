// Typed calls against the Kubernetes API with client-side QPS/burst limiting, retries
// with exponential backoff and jitter on 5xx/429/connection errors (Retry-After
// honoured), and a deadline on every call. Every error reads
// "VERB PATH: HTTP STATUS Reason: the API's Status.message" with Error::code = status
// (0 when the server could not be reached).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "kube/client/config.h"
#include "kube/client/list_decoder.h"
#include "kube/client/object_text.h"
#include "kube/client/rate_limit.h"
#include "kube/client/resource.h"
#include "kube/client/transport.h"

namespace weft::kube {

struct ClientOptions {
  double qps = 50;          // client-side limit; <= 0 disables it
  int burst = 100;
  Millis timeout{30000};    // whole-call deadline, retries and waits included
  int max_attempts = 6;     // per call, the first attempt included
  BackoffPolicy backoff{};
  uint64_t jitter_seed = 0; // 0 = from the clock
};

// One HTTP attempt as seen by the request hook (for tests and benches to count calls).
struct RequestRecord {
  std::string verb;
  std::string path;
  int status = 0;           // 0 = no response
  int attempt = 0;          // 0 for the first try of a call
};
using RequestHook = std::function<void(const RequestRecord&)>;

struct ObjectList {
  std::vector<nlohmann::json> items;
  std::string resource_version;   // of the list, to watch from
  std::string continue_token;     // non-empty when more pages remain (single-page calls)
};

enum class PatchType { Merge, StrategicMerge, Json };
std::string content_type_of(PatchType type);

struct EvictionResult {
  enum class Outcome { Evicted, Blocked, NotFound };
  Outcome outcome = Outcome::Evicted;
  std::string message;   // the API's reason when blocked (a PodDisruptionBudget)
};

struct WatchEvent {
  std::string type;          // ADDED, MODIFIED, DELETED, BOOKMARK
  nlohmann::json object;     // null when raw
  // ListOptions::raw: the object's JSON text, checked as JSON; valid during the handler
  // call; and its identity, read in the same pass.
  std::string_view raw;
  ObjectIdentity identity;
};

// How a watch call ended. A 410 Gone (as HTTP status or an ERROR event) comes back as an
// error with code 410: the caller must relist.
struct WatchEnd {
  std::string resource_version;   // last version seen (events and bookmarks)
  size_t events = 0;
  std::string reason;             // "closed by server", "handler stopped", "stream error: ..."
};

class Client {
 public:
  Client(std::shared_ptr<Transport> transport, ClientOptions options = {});
  // Real HTTP(S) transport from a config; errors name the TLS file/field.
  static Result<std::unique_ptr<Client>> from_config(const ClientConfig& config, ClientOptions options = {});

  Result<nlohmann::json> get(const ResourceRef& ref, const std::string& ns, const std::string& name);
  // All pages when options.limit > 0 (following continue tokens), else one request.
  Result<ObjectList> list(const ResourceRef& ref, const std::string& ns, const ListOptions& options = {});
  // Exactly one page; continue_token tells whether there are more.
  Result<ObjectList> list_page(const ResourceRef& ref, const std::string& ns, const ListOptions& options);
  // Streams a list without holding the whole document as a tree: each item goes to
  // on_item as soon as it is decoded. Used by the informer for big lists.
  Result<ObjectList> list_each(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                               const std::function<void(nlohmann::json&&)>& on_item);
  // The same with each item's JSON text (an object, checked; valid during the call) and
  // its identity, for readers that decode text themselves. options.keep does not apply.
  Result<ObjectList> list_each_raw(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                                   const std::function<void(std::string_view, ObjectIdentity&&)>& on_item);
  // The same with each item's text found but NOT checked (decode_list_texts): `on_item`
  // reads it with a checking reader, so each item is walked once. Pages are fetched ahead
  // of their reading (list_ahead.h).
  Result<ObjectList> list_each_text(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                                    const std::function<void(std::string_view)>& on_item);

  Result<nlohmann::json> create(const ResourceRef& ref, const std::string& ns, const nlohmann::json& object);
  // PUT; metadata.resourceVersion in the object makes it conditional (409 when stale).
  Result<nlohmann::json> update(const ResourceRef& ref, const nlohmann::json& object);
  Result<nlohmann::json> update_status(const ResourceRef& ref, const nlohmann::json& object);
  Result<nlohmann::json> patch(const ResourceRef& ref, const std::string& ns, const std::string& name,
                               const nlohmann::json& patch, PatchType type = PatchType::Merge,
                               const std::string& subresource = "");
  // Read, mutate, write back with the read resourceVersion; on 409 read again and re-apply.
  // The mutation may return an error to give up. subresource "" or "status".
  using Mutation = std::function<Status(nlohmann::json&)>;
  Result<nlohmann::json> read_modify_write(const ResourceRef& ref, const std::string& ns, const std::string& name,
                                           const Mutation& mutate, const std::string& subresource = "",
                                           int max_conflicts = 8);
  Result<nlohmann::json> update_status_with_retry(const ResourceRef& ref, const std::string& ns,
                                                  const std::string& name, const Mutation& mutate) {
    return read_modify_write(ref, ns, name, mutate, "status");
  }
  // DELETE; a missing object is not an error when ignore_missing.
  Status remove(const ResourceRef& ref, const std::string& ns, const std::string& name, bool ignore_missing = false);

  // POST pods/NAME/binding.
  Status bind(const std::string& ns, const std::string& pod, const std::string& node, const std::string& pod_uid = "");
  // POST policy/v1 Eviction. 429 (a PodDisruptionBudget) is an outcome, tried once, never retried.
  Result<EvictionResult> evict(const std::string& ns, const std::string& pod, int64_t grace_seconds = -1);

  // Watch from options.resource_version with bookmarks; events go to on_event in order
  // (return false to end the watch), which may take the event's object. Blocks until the
  // stream ends or cancel fires.
  Result<WatchEnd> watch(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                         const std::function<bool(WatchEvent&&)>& on_event, CancelToken* cancel = nullptr);

  void set_request_hook(RequestHook hook);
  uint64_t request_count() const { return requests_.load(); }
  const ClientOptions& options() const { return options_; }
  std::string address() const { return transport_->address(); }
  // Waits for the rate limiter and backoff honouring the call deadline; exposed for the
  // watch loop, which backs off between reconnects with the same policy.
  Millis next_backoff(int attempt);

  struct Call {
    std::string verb;
    std::string path;
    std::string body;
    std::string content_type;
    bool retry_429 = true;
    // When set, a 429 it accepts is the call's answer, not overload to retry (eviction:
    // a PodDisruptionBudget refusal).
    bool (*answer_429)(const HttpResponse&) = nullptr;
    std::string* body_room = nullptr;   // HttpRequest::body_room
  };
  // One logical call: rate limit, attempts, backoff, deadline. Returns any final HTTP
  // response (errors for the caller to judge) or a connection/deadline error.
  Result<HttpResponse> execute(const Call& call);

 private:
  Result<nlohmann::json> json_call(const Call& call);
  // Every page of a list; `decode` reads one response body and says where it goes on.
  Result<ObjectList> list_pages(const ResourceRef& ref, const std::string& ns, const ListOptions& options,
                                const std::function<Result<ListMeta>(const std::string& body)>& decode);
  void record(const Call& call, int status, int attempt);

  std::shared_ptr<Transport> transport_;
  ClientOptions options_;
  TokenBucket bucket_;
  Jitter jitter_;
  std::atomic<uint64_t> requests_{0};
  std::mutex hook_mu_;
  RequestHook hook_;
};

// What every binary does with its --kubeconfig flag: resolve the config (flag >
// $KUBECONFIG > in-cluster > ~/.kube/config) and build a client on it.
Result<std::unique_ptr<Client>> connect(const std::string& kubeconfig_flag, ClientOptions options = {});

// "GET /api/v1/nodes/x: HTTP 404 NotFound: nodes \"x\" not found" from a response.
Error api_error(const std::string& verb, const std::string& path, const HttpResponse& response);

}  // namespace weft::kube
