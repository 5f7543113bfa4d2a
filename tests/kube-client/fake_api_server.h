// An in-process stand-in for the API server (cpp-httplib server on 127.0.0.1), small
// enough to script exact failures: a store with resourceVersions, list with paging,
// watch with history (410 below a compaction point), conditional PUT, merge patch,
// binding, eviction (429 for pods labelled protected=true) and fault injection.
// Used for the client unit tests; the integration tests use the real kube-lite.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

namespace weft::kube::testing {

class FakeApiServer {
 public:
  FakeApiServer();
  ~FakeApiServer();

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Creates or replaces an object under a type path ("/api/v1/pods"); returns it with
  // its new resourceVersion. Records a watch event.
  nlohmann::json upsert(const std::string& type, nlohmann::json object);
  void remove(const std::string& type, const std::string& ns, const std::string& name);
  // Events at or below the current version are forgotten: watches from them get 410.
  void compact();
  int64_t resource_version();

  // The next requests get these statuses (a Status body, Retry-After if given).
  void fail_next(std::vector<int> statuses, const std::string& retry_after = "");
  void set_fail_rate(double rate, int status = 500);
  void set_drop_watch_after(int events);   // 0 = never
  void set_list_page_limit_honoured(bool on) { paging_ = on; }

  // The next watch request gets a 410 Gone ERROR event, as after an etcd compaction.
  void expire_next_watch() { std::lock_guard lock(mu_); expire_next_watch_ = true; }
  std::string last_authorization() { std::lock_guard lock(mu_); return last_auth_; }

  int requests() const { return requests_.load(); }
  std::vector<std::string> request_log();
  int count_requests(const std::string& prefix);   // e.g. "GET /api/v1/pods?watch"

 private:
  struct Parsed {
    std::string type;     // "/api/v1/pods"
    std::string ns;
    std::string name;
    std::string sub;
    bool ok = false;
  };
  struct Event {
    int64_t rv;
    std::string type_path;
    std::string ns;
    std::string kind;     // ADDED MODIFIED DELETED
    nlohmann::json object;
  };
  static Parsed parse(const std::string& path);
  void handle(const httplib::Request& req, httplib::Response& res);
  bool inject_fault(httplib::Response& res);
  void serve_list(const Parsed& p, const httplib::Request& req, httplib::Response& res);
  void serve_watch(const Parsed& p, const httplib::Request& req, httplib::Response& res);
  nlohmann::json store_locked(const std::string& type, nlohmann::json object, const std::string& kind);

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<int> requests_{0};
  std::atomic<bool> stopping_{false};

  std::mutex mu_;
  std::condition_variable changed_;
  int64_t rv_ = 100;
  int64_t compacted_ = 0;
  std::map<std::string, std::map<std::string, nlohmann::json>> objects_;   // type -> key -> object
  std::deque<Event> history_;
  std::deque<int> fail_next_;
  std::string retry_after_;
  double fail_rate_ = 0;
  int fail_status_ = 500;
  std::mt19937 rng_{7};
  int drop_watch_after_ = 0;
  bool paging_ = true;
  std::vector<std::string> log_;
  bool expire_next_watch_ = false;
  std::string last_auth_;
};

}  // namespace weft::kube::testing
