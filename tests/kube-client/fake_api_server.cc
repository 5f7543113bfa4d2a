#include "tests/kube-client/fake_api_server.h"

#include <sstream>

namespace weft::kube::testing {

using nlohmann::json;

namespace {

json status_body(int code, const std::string& reason, const std::string& message) {
  return {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
          {"code", code},     {"reason", reason},   {"message", message}};
}

void reply(httplib::Response& res, int code, const json& body) {
  res.status = code;
  res.set_content(body.dump(), "application/json");
}

void fail(httplib::Response& res, int code, const std::string& reason, const std::string& message) {
  reply(res, code, status_body(code, reason, message));
}

std::string key_of(const std::string& ns, const std::string& name) { return ns.empty() ? name : ns + "/" + name; }

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> out;
  std::stringstream ss(path);
  std::string seg;
  while (std::getline(ss, seg, '/')) {
    if (!seg.empty()) out.push_back(seg);
  }
  return out;
}

bool label_match(const json& obj, const std::string& selector) {
  if (selector.empty()) return true;
  // Only "k=v" terms joined by commas: enough to prove the selector reaches the server.
  std::stringstream ss(selector);
  std::string term;
  while (std::getline(ss, term, ',')) {
    auto eq = term.find('=');
    if (eq == std::string::npos) continue;
    auto labels = obj["metadata"].value("labels", json::object());
    if (labels.value(term.substr(0, eq), "\x01") != term.substr(eq + 1)) return false;
  }
  return true;
}

}  // namespace

FakeApiServer::FakeApiServer() {
  auto h = [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); };
  server_.Get(".*", h);
  server_.Post(".*", h);
  server_.Put(".*", h);
  server_.Patch(".*", h);
  server_.Delete(".*", h);
  port_ = server_.bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeApiServer::~FakeApiServer() {
  stopping_ = true;
  changed_.notify_all();
  server_.stop();
  thread_.join();
}

FakeApiServer::Parsed FakeApiServer::parse(const std::string& path) {
  Parsed p;
  auto seg = split(path);
  size_t i;
  if (seg.size() >= 3 && seg[0] == "api") {
    p.type = "/api/" + seg[1];
    i = 2;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    p.type = "/apis/" + seg[1] + "/" + seg[2];
    i = 3;
  } else {
    return p;
  }
  if (seg.size() - i >= 3 && seg[i] == "namespaces") {
    p.ns = seg[i + 1];
    i += 2;
  }
  p.type += "/" + seg[i];
  if (i + 1 < seg.size()) p.name = seg[i + 1];
  if (i + 2 < seg.size()) p.sub = seg[i + 2];
  p.ok = true;
  return p;
}

json FakeApiServer::store_locked(const std::string& type, json object, const std::string& kind) {
  object["metadata"]["resourceVersion"] = std::to_string(++rv_);
  std::string ns = object["metadata"].value("namespace", "");
  std::string name = object["metadata"].value("name", "");
  if (kind == "DELETED") {
    objects_[type].erase(key_of(ns, name));
  } else {
    objects_[type][key_of(ns, name)] = object;
  }
  history_.push_back(Event{rv_, type, ns, kind, object});
  changed_.notify_all();
  return object;
}

json FakeApiServer::upsert(const std::string& type, json object) {
  std::lock_guard lock(mu_);
  std::string key = key_of(object["metadata"].value("namespace", ""), object["metadata"].value("name", ""));
  bool exists = objects_[type].count(key) > 0;
  return store_locked(type, std::move(object), exists ? "MODIFIED" : "ADDED");
}

void FakeApiServer::remove(const std::string& type, const std::string& ns, const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = objects_[type].find(key_of(ns, name));
  if (it != objects_[type].end()) store_locked(type, it->second, "DELETED");
}

void FakeApiServer::compact() {
  std::lock_guard lock(mu_);
  compacted_ = rv_;
  history_.clear();
}

int64_t FakeApiServer::resource_version() {
  std::lock_guard lock(mu_);
  return rv_;
}

void FakeApiServer::fail_next(std::vector<int> statuses, const std::string& retry_after) {
  std::lock_guard lock(mu_);
  fail_next_.assign(statuses.begin(), statuses.end());
  retry_after_ = retry_after;
}

void FakeApiServer::set_fail_rate(double rate, int status) {
  std::lock_guard lock(mu_);
  fail_rate_ = rate;
  fail_status_ = status;
}

void FakeApiServer::set_drop_watch_after(int events) {
  std::lock_guard lock(mu_);
  drop_watch_after_ = events;
}

std::vector<std::string> FakeApiServer::request_log() {
  std::lock_guard lock(mu_);
  return log_;
}

int FakeApiServer::count_requests(const std::string& prefix) {
  std::lock_guard lock(mu_);
  int n = 0;
  for (const auto& l : log_) n += l.rfind(prefix, 0) == 0;
  return n;
}

bool FakeApiServer::inject_fault(httplib::Response& res) {
  int code = 0;
  if (!fail_next_.empty()) {
    code = fail_next_.front();
    fail_next_.pop_front();
    if (!retry_after_.empty()) res.set_header("Retry-After", retry_after_);
  } else if (fail_rate_ > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < fail_rate_) {
    code = fail_status_;
  }
  if (code == 0) return false;
  fail(res, code, code == 429 ? "TooManyRequests" : "InternalError", "injected fault " + std::to_string(code));
  return true;
}

void FakeApiServer::handle(const httplib::Request& req, httplib::Response& res) {
  ++requests_;
  std::string query;
  for (const auto& [k, v] : req.params) query += (query.empty() ? "?" : "&") + k + "=" + v;
  Parsed p = parse(req.path);
  std::unique_lock lock(mu_);
  log_.push_back(req.method + " " + req.path + query);
  last_auth_ = req.get_header_value("Authorization");
  if (inject_fault(res)) return;
  if (!p.ok) return fail(res, 404, "NotFound", "no such path " + req.path);
  auto& table = objects_[p.type];
  const std::string key = key_of(p.ns, p.name);

  if (req.method == "GET" && p.name.empty()) {
    lock.unlock();
    if (req.has_param("watch")) return serve_watch(p, req, res);
    return serve_list(p, req, res);
  }
  if (req.method == "POST" && p.name.empty()) {
    json obj = json::parse(req.body, nullptr, false);
    if (!obj.is_object()) return fail(res, 400, "BadRequest", "body is not JSON");
    if (!p.ns.empty()) obj["metadata"]["namespace"] = p.ns;
    std::string k = key_of(p.ns, obj["metadata"].value("name", ""));
    if (table.count(k)) return fail(res, 409, "AlreadyExists", p.type + " \"" + k + "\" already exists");
    return reply(res, 201, store_locked(p.type, obj, "ADDED"));
  }
  auto it = table.find(key);
  if (p.sub == "binding" && req.method == "POST") {
    if (it == table.end()) return fail(res, 404, "NotFound", "pods \"" + p.name + "\" not found");
    json pod = it->second;
    if (!pod["spec"].value("nodeName", "").empty()) {
      return fail(res, 409, "Conflict", "pod " + p.name + " is already assigned to node " +
                                            pod["spec"]["nodeName"].get<std::string>());
    }
    json binding = json::parse(req.body, nullptr, false);
    pod["spec"]["nodeName"] = binding["target"]["name"];
    store_locked(p.type, pod, "MODIFIED");
    return reply(res, 201, status_body(201, "", ""));
  }
  if (p.sub == "eviction" && req.method == "POST") {
    if (it == table.end()) return fail(res, 404, "NotFound", "pods \"" + p.name + "\" not found");
    if (it->second["metadata"].value("labels", json::object()).value("protected", "") == "true") {
      json refusal = status_body(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.");
      refusal["details"] = {{"causes", json::array({{{"reason", "DisruptionBudget"},
                                                     {"message", "The disruption budget guard needs 1 healthy pods"}}})}};
      return reply(res, 429, refusal);
    }
    store_locked(p.type, it->second, "DELETED");
    return reply(res, 201, status_body(201, "", ""));
  }
  if (it == table.end()) return fail(res, 404, "NotFound", p.type + " \"" + key + "\" not found");
  if (req.method == "GET") return reply(res, 200, it->second);
  if (req.method == "DELETE") {
    store_locked(p.type, it->second, "DELETED");
    return reply(res, 200, status_body(200, "", ""));
  }
  if (req.method == "PUT") {
    json obj = json::parse(req.body, nullptr, false);
    if (!obj.is_object()) return fail(res, 400, "BadRequest", "body is not JSON");
    std::string sent = obj["metadata"].value("resourceVersion", "");
    if (!sent.empty() && sent != it->second["metadata"].value("resourceVersion", "")) {
      return fail(res, 409, "Conflict",
                  "Operation cannot be fulfilled on " + p.type + " \"" + p.name +
                      "\": the object has been modified; please apply your changes to the latest version and try "
                      "again");
    }
    json updated = it->second;
    if (p.sub == "status") {
      updated["status"] = obj.value("status", json::object());
    } else {
      obj.erase("status");
      obj["status"] = updated.value("status", json::object());
      updated = obj;
    }
    return reply(res, 200, store_locked(p.type, updated, "MODIFIED"));
  }
  if (req.method == "PATCH") {
    json patch = json::parse(req.body, nullptr, false);
    if (!patch.is_object()) return fail(res, 400, "BadRequest", "patch is not a JSON object");
    json updated = it->second;
    updated.merge_patch(patch);
    return reply(res, 200, store_locked(p.type, updated, "MODIFIED"));
  }
  fail(res, 405, "MethodNotAllowed", req.method + " not allowed");
}

void FakeApiServer::serve_list(const Parsed& p, const httplib::Request& req, httplib::Response& res) {
  std::lock_guard lock(mu_);
  const auto& table = objects_[p.type];
  std::string selector = req.has_param("labelSelector") ? req.get_param_value("labelSelector") : "";
  std::vector<const json*> matching;
  for (const auto& [k, obj] : table) {
    if (!p.ns.empty() && obj["metadata"].value("namespace", "") != p.ns) continue;
    if (!label_match(obj, selector)) continue;
    matching.push_back(&obj);
  }
  size_t start = req.has_param("continue") ? std::stoul(req.get_param_value("continue")) : 0;
  size_t limit = paging_ && req.has_param("limit") ? std::stoul(req.get_param_value("limit")) : matching.size();
  json list = {{"kind", "List"}, {"apiVersion", "v1"}, {"metadata", {{"resourceVersion", std::to_string(rv_)}}}};
  list["items"] = json::array();
  size_t end = std::min(matching.size(), start + limit);
  for (size_t i = start; i < end; ++i) list["items"].push_back(*matching[i]);
  if (end < matching.size()) list["metadata"]["continue"] = std::to_string(end);
  reply(res, 200, list);
}

void FakeApiServer::serve_watch(const Parsed& p, const httplib::Request& req, httplib::Response& res) {
  int64_t from = req.has_param("resourceVersion") ? std::stoll(req.get_param_value("resourceVersion")) : 0;
  int timeout_s = req.has_param("timeoutSeconds") ? std::stoi(req.get_param_value("timeoutSeconds")) : 60;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  struct State {
    int64_t last;
    int sent = 0;
    bool gone;
  };
  auto state = std::make_shared<State>();
  state->last = from;
  {
    std::lock_guard lock(mu_);
    state->gone = (from != 0 && from < compacted_) || expire_next_watch_;
    expire_next_watch_ = false;
  }
  const Parsed where = p;
  res.set_chunked_content_provider("application/json", [this, state, where, until](size_t, httplib::DataSink& sink) {
    if (state->gone) {
      std::string line = json{{"type", "ERROR"},
                              {"object", status_body(410, "Expired", "too old resource version: " +
                                                                         std::to_string(state->last))}}
                             .dump() +
                         "\n";
      sink.write(line.data(), line.size());
      sink.done();
      return true;
    }
    std::unique_lock lock(mu_);
    changed_.wait_for(lock, std::chrono::milliseconds(50));
    if (stopping_ || std::chrono::steady_clock::now() >= until) {
      sink.done();
      return true;
    }
    for (const auto& e : history_) {
      if (e.rv <= state->last || e.type_path != where.type) continue;
      if (!where.ns.empty() && e.ns != where.ns) continue;
      std::string line = json{{"type", e.kind}, {"object", e.object}}.dump() + "\n";
      state->last = e.rv;
      if (!sink.write(line.data(), line.size())) return false;
      if (drop_watch_after_ > 0 && ++state->sent >= drop_watch_after_) {
        sink.done();
        return true;
      }
    }
    return true;
  });
}

}  // namespace weft::kube::testing
