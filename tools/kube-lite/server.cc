#include "tools/kube-lite/server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <optional>
#include <thread>

#include "kube/client/json_reader.h"
#include "kube/scenario.h"
#include "tools/kube-lite/discovery.h"
#include "tools/kube-lite/http_server.h"
#include "tools/kube-lite/openapi.h"
#include "tools/kube-lite/routing.h"
#include "tools/kube-lite/watch.h"

namespace weft::kube_lite {

using nlohmann::json;

namespace {

// A version that serves another's objects (resource_types.h): bodies arrive in the stored
// version and leave in the one asked for, as the real server converts them.
void to_stored_version(json& body, const ResourceType& served, const ResourceType& stored) {
  if (&served != &stored && body.is_object() && body.value("apiVersion", "") == served.api_version())
    body["apiVersion"] = stored.api_version();
}

std::string in_version(std::string text, const ResourceType& served, const ResourceType& stored) {
  const std::string from = "\"apiVersion\":\"" + stored.api_version() + "\"";
  const std::string to = "\"apiVersion\":\"" + served.api_version() + "\"";
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
  return text;
}

std::string k8s_verb(const std::string& method, const Route& route, bool watch) {
  if (method == "GET") return watch ? "watch" : route.name.empty() ? "list" : "get";
  if (method == "POST") return "create";
  if (method == "PUT") return "update";
  if (method == "PATCH") return "patch";
  if (method == "DELETE") return route.name.empty() ? "deletecollection" : "delete";
  return method;
}

bool truthy(const httplib::Request& req, const char* param) {
  if (!req.has_param(param)) return false;
  std::string v = req.get_param_value(param);
  return v == "true" || v == "1";
}

Reply json_reply(json body) {
  Reply r;
  r.body = std::move(body);
  return r;
}

// POST/PUT bodies: JSON, or YAML when the client says so.
std::variant<json, ApiError> decode_body(const httplib::Request& req) {
  std::string ct = req.get_header_value("Content-Type");
  if (ct.find("protobuf") != std::string::npos) return unsupported_media_type(ct);
  if (ct.find("yaml") != std::string::npos) {
    auto j = kube::yaml_to_json(req.body, "request body");
    if (!j) return bad_request(j.message());
    return *j;
  }
  auto j = kube::read_json(req.body);   // nlohmann's tree, read several times faster
  if (!j) return bad_request("the body of the request could not be decoded as JSON");
  return std::move(*j);
}

}  // namespace

Server::Server(Registry& registry, const Authenticator& auth, ServerOptions options, RequestLog* log)
    : registry_(registry),
      auth_(auth),
      options_(options),
      log_(log),
      faults_(options.fail_rate, options.retry_after_seconds, options.seed),
      crash_(options.kill_after_writes, options.kill_pid_file, options.kill_writes_matching),
      http_(std::make_unique<HttpServer>()) {
  int threads = options_.threads;
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  http_->set_keep_alive_max_count(1000);
  http_->set_keep_alive_timeout(10);
  http_->set_payload_max_length(256u << 20);
  // cpp-httplib's defaults add SO_REUSEPORT, which would let a second server share a
  // busy port instead of failing to listen.
  // TCP_NODELAY: headers and body go out as separate writes; with Nagle and delayed
  // ACKs every response would wait ~40 ms. (Accepted sockets inherit it on Linux.)
  http_->set_tcp_nodelay(true);
  http_->set_socket_options([](int sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  });
  auto handler = [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); };
  const std::string any = "/.*";
  http_->Get(any, handler);
  http_->Post(any, handler);
  http_->Put(any, handler);
  http_->Patch(any, handler);
  http_->Delete(any, handler);
}

Server::~Server() = default;

Result<int> Server::bind(const std::string& host, int port) {
  int bound = port == 0 ? http_->bind_to_any_port(host) : (http_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) return make_error("cannot listen on " + host + ":" + std::to_string(port));
  address_ = host + ":" + std::to_string(bound);
  return bound;
}

void Server::run() { http_->listen_after_bind(); }

void Server::stop() {
  registry_.store().shutdown();   // ends every watch stream
  http_->shut_down();             // closes the listening socket and the idle connections
}

void Server::handle(const httplib::Request& req, httplib::Response& res) {
  if (options_.latency_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(options_.latency_ms));
  auto q = req.target.find('?');
  std::string query = q == std::string::npos ? "" : req.target.substr(q + 1);
  std::string user_name;
  Reply reply;
  bool streaming = false;
  auto user = auth_.authenticate(req.get_header_value("Authorization"));
  if (!user) {
    reply = error_reply(unauthorized());
  } else {
    user_name = user->name;
    try {
      reply = dispatch(req, res, *user, streaming);
    } catch (const json::exception& e) {
      // A field of the wrong type somewhere in the body: the client's fault, not a crash.
      streaming = false;
      reply = error_reply(bad_request(std::string("the object could not be processed: ") + e.what()));
    }
  }
  if (log_) log_->write(req.method, req.path, query, user_name, streaming ? 200 : reply.status);
  if (streaming) return;
  crash_.served(req.method, req.path, reply.status);
  res.status = reply.status;
  if (!reply.retry_after.empty()) res.set_header("Retry-After", reply.retry_after);
  if (reply.list) {
    // A List can be tens of megabytes: written in parts, never concatenated (list_body.h).
    res.set_content_provider(reply.list->size(), "application/json",
                             [list = reply.list](size_t offset, size_t, httplib::DataSink& sink) {
                               return list->write_from(offset, [&](const char* d, size_t n) { return sink.write(d, n); });
                             });
    return;
  }
  res.set_content("", 0, "application/json");
  res.body = std::move(reply).body_text();   // moved, not copied
}

Reply Server::dispatch(const httplib::Request& req, httplib::Response& res, const User& user, bool& streaming) {
  const auto& types = registry_.types();
  Route route = parse_route(types, req.path);
  bool watch = route.kind == Route::Kind::Resource && req.method == "GET" && truthy(req, "watch");
  if (!watch && route.kind != Route::Kind::Unknown)
    if (auto fault = faults_.maybe_fail()) return *fault;
  if (route.kind != Route::Kind::Resource && req.method != "GET")
    return error_reply(method_not_allowed("the server does not allow this method on the requested resource"));
  switch (route.kind) {
    case Route::Kind::Version:
      return json_reply(version_info());
    case Route::Kind::ApiVersions:
      return json_reply(api_versions(address_));
    case Route::Kind::GroupList:
      return json_reply(api_group_list(types));
    case Route::Kind::Group: {
      auto g = api_group(types, route.group);
      if (g) return json_reply(*g);
      break;
    }
    case Route::Kind::ResourceList: {
      auto l = api_resource_list(types, route.group, route.version);
      if (l) return json_reply(*l);
      break;
    }
    case Route::Kind::OpenApiIndex:
      return json_reply(openapi_v3_index(types));
    case Route::Kind::OpenApiDocument: {
      auto d = openapi_v3_document(types, route.group, route.version);
      if (d) return json_reply(*d);
      break;
    }
    case Route::Kind::Resource: {
      Reply reply = serve_resource(req, res, user, route, streaming);
      const ResourceType& stored = types.storage_of(*route.type);
      if (&stored != route.type && !streaming) reply.text = in_version(std::move(reply).body_text(), *route.type, stored);
      return reply;
    }
    case Route::Kind::Unknown:
      break;
  }
  ApiError e{404, "NotFound", "the server could not find the requested resource", nullptr};
  e.details = {{"causes", json::array({{{"reason", "UnexpectedServerResponse"}, {"message", "404 page not found"}}})}};
  return error_reply(e);
}

Reply Server::serve_resource(const httplib::Request& req, httplib::Response& res, const User& user, const Route& route,
                             bool& streaming) {
  const ResourceType& served = *route.type;
  const ResourceType& type = registry_.types().storage_of(served);   // whose objects are read and written
  const std::string& sub = route.subresource;
  bool watch = req.method == "GET" && truthy(req, "watch");
  RequestAttributes attrs{k8s_verb(req.method, route, watch), type.group, type.plural, sub, route.ns, route.name};
  if (auto denied = authorize(user, attrs)) return error_reply(*denied);
  if (type.read_only && (req.method != "GET" || watch || !sub.empty()))
    return error_reply(method_not_allowed("the server does not allow this method on the requested resource"));
  bool dry_run = req.has_param("dryRun") && req.get_param_value("dryRun") == "All";
  if (req.has_param("dryRun") && !dry_run)
    return error_reply(bad_request("dryRun: Unsupported value: \"" + req.get_param_value("dryRun") +
                                   "\": supported values: \"All\""));
  bool status_sub = sub == "status" && type.has_status;
  bool pod_sub = &type == &registry_.types().pods() && (sub == "binding" || sub == "eviction");
  if (!sub.empty() && !status_sub && !pod_sub)
    return error_reply(ApiError{404, "NotFound", "the server could not find the requested resource", nullptr});

  if (req.method == "GET") {
    if (!route.name.empty()) {
      if (pod_sub) return error_reply(method_not_allowed(sub + " does not support get"));
      return registry_.get(type, route.ns, route.name);
    }
    std::string labels = req.get_param_value("labelSelector"), fields = req.get_param_value("fieldSelector");
    if (!watch) {
      ListParams p{labels, fields, 0, req.get_param_value("continue")};
      if (req.has_param("limit")) {
        try {
          p.limit = std::stoll(req.get_param_value("limit"));
        } catch (const std::exception&) {
          return error_reply(bad_request("limit: invalid value \"" + req.get_param_value("limit") + "\""));
        }
      }
      return registry_.list(type, route.ns, p);
    }
    auto filter = ObjectFilter::make(type, type.namespaced ? route.ns : "", labels, fields);
    if (auto* e = std::get_if<ApiError>(&filter)) return error_reply(*e);
    WatchOptions wo;
    wo.resource_version = req.get_param_value("resourceVersion");
    wo.bookmarks = truthy(req, "allowWatchBookmarks");
    wo.drop_after = options_.drop_watch_after;
    wo.bookmark_interval = options_.bookmark_interval;
    if (req.has_param("timeoutSeconds")) {
      try {
        wo.timeout_seconds = std::stoi(req.get_param_value("timeoutSeconds"));
      } catch (const std::exception&) {
        return error_reply(bad_request("timeoutSeconds: invalid value"));
      }
    }
    auto session = std::make_shared<WatchSession>(registry_.store(), type, std::get<ObjectFilter>(filter), wo);
    if (auto e = session->start()) return error_reply(*e);
    streaming = true;
    res.status = 200;
    // ";stream=watch" as the real server says; it also keeps cpp-httplib from gzipping
    // (and so holding back) the events.
    res.set_chunked_content_provider("application/json;stream=watch", [session, &served, &type](size_t, httplib::DataSink& sink) {
      while (true) {
        if (!sink.is_writable()) return false;
        auto chunk = session->next(std::chrono::milliseconds(500));
        if (!chunk) {
          sink.done();
          return true;
        }
        if (&served != &type) *chunk = in_version(std::move(*chunk), served, type);
        if (!chunk->empty()) return sink.write(chunk->data(), chunk->size());
      }
    });
    return Reply{};
  }
  if (route.name.empty() && req.method != "POST")
    return error_reply(method_not_allowed("the server does not allow this method on the requested resource"));
  std::optional<json> pruned;
  if (req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
    // A JSON patch is a list of operations: only merge patches and bodies are checked.
    json checked = req.method == "PATCH" ? json::parse(req.body, nullptr, false) : json();
    if (req.method != "PATCH") {
      auto decoded = decode_body(req);
      if (auto* d = std::get_if<json>(&decoded)) checked = std::move(*d);
    }
    auto fields = validate_fields(schemas_, type, checked, req.get_param_value("fieldValidation"));
    if (auto* e = std::get_if<ApiError>(&fields)) return error_reply(*e);
    for (const auto& w : std::get<std::vector<std::string>>(fields)) res.set_header("Warning", "299 - " + json(w).dump());
    if (checked.is_object()) pruned = std::move(checked);   // unknown fields dropped, as the real server stores it
    if (pruned) to_stored_version(*pruned, served, type);
  }
  if (req.method == "PATCH") {
    return registry_.patch(user, type, route.ns, route.name, sub, req.get_header_value("Content-Type"),
                           pruned ? pruned->dump() : req.body, dry_run);
  }
  json body;
  if (pruned) {   // decoded once above
    body = std::move(*pruned);
  } else if (!req.body.empty() || req.method != "DELETE") {
    auto decoded = decode_body(req);
    if (auto* e = std::get_if<ApiError>(&decoded)) return error_reply(*e);
    body = std::move(std::get<json>(decoded));
    to_stored_version(body, served, type);
  }
  if (req.method == "POST") {
    if (sub == "binding") return registry_.bind(route.ns, route.name, body, dry_run);
    if (sub == "eviction") {
      bool eviction_dry_run = dry_run;
      if (body.is_object() && body.contains("deleteOptions") && body["deleteOptions"].contains("dryRun")) {
        const auto& d = body["deleteOptions"]["dryRun"];
        eviction_dry_run = eviction_dry_run || (d.is_array() && !d.empty() && d[0] == "All");
      }
      return registry_.evict(route.ns, route.name, body, eviction_dry_run);
    }
    if (!route.name.empty())
      return error_reply(method_not_allowed("the server does not allow this method on the requested resource"));
    return registry_.create(user, type, route.ns, std::move(body), dry_run);
  }
  if (pod_sub) return error_reply(method_not_allowed(sub + " supports only create"));
  if (req.method == "PUT") return registry_.update(user, type, route.ns, route.name, sub, body, dry_run);
  if (req.method == "DELETE") {
    if (!sub.empty()) return error_reply(method_not_allowed("cannot delete a subresource"));
    bool body_dry_run = body.is_object() && body.contains("dryRun") && body["dryRun"].is_array() &&
                        !body["dryRun"].empty() && body["dryRun"][0] == "All";
    return registry_.remove(user, type, route.ns, route.name, body, dry_run || body_dry_run);
  }
  return error_reply(method_not_allowed("the server does not allow this method on the requested resource"));
}

}  // namespace weft::kube_lite
