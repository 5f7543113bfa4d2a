// A switchable HTTP proxy in front of kube-lite, for fault tests: forwards requests,
// or answers 500, or holds them unanswered (the API "times out"), or holds only
// PATCHes. Counts what it saw so a test can wait for "a PATCH is in flight".
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <httplib.h>

namespace weft::agent::testing {

class ApiProxy {
 public:
  enum class Mode { Forward, Fail500, Hang, HangPatch };

  ApiProxy(std::string upstream_host, int upstream_port)
      : host_(std::move(upstream_host)), upstream_port_(upstream_port) {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); };
    const std::string all = ".*";
    server_.Get(all, handler);
    server_.Post(all, handler);
    server_.Put(all, handler);
    server_.Patch(all, handler);
    server_.Delete(all, handler);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~ApiProxy() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    server_.stop();
    thread_.join();
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void set_mode(Mode m) {
    {
      std::lock_guard lock(mu_);
      mode_ = m;
    }
    cv_.notify_all();
  }
  int held_patches() const { return held_patches_.load(); }
  int failed() const { return failed_.load(); }
  int forwarded() const { return forwarded_.load(); }

 private:
  void handle(const httplib::Request& req, httplib::Response& res) {
    std::unique_lock lock(mu_);
    const bool patch = req.method == "PATCH";
    if (mode_ == Mode::Fail500) {
      ++failed_;
      res.status = 500;
      res.set_content(R"({"kind":"Status","status":"Failure","message":"injected by the test proxy","code":500})",
                      "application/json");
      return;
    }
    if (mode_ == Mode::Hang || (mode_ == Mode::HangPatch && patch)) {
      if (patch) ++held_patches_;
      const Mode held_in = mode_;
      cv_.wait_for(lock, std::chrono::seconds(30), [&] { return stopping_ || mode_ != held_in; });
      res.status = 503;
      return;
    }
    lock.unlock();
    httplib::Client up(host_, upstream_port_);
    up.set_read_timeout(10, 0);
    httplib::Headers headers;
    for (const auto& [k, v] : req.headers) {
      if (k == "Authorization" || k == "Accept" || k == "User-Agent") headers.emplace(k, v);
    }
    const std::string path = req.target.empty() ? req.path : req.target;
    const std::string type = req.get_header_value("Content-Type");
    httplib::Result r = req.method == "GET"      ? up.Get(path, headers)
                        : req.method == "PATCH"  ? up.Patch(path, headers, req.body, type)
                        : req.method == "POST"   ? up.Post(path, headers, req.body, type)
                        : req.method == "PUT"    ? up.Put(path, headers, req.body, type)
                                                 : up.Delete(path, headers);
    if (!r) {
      res.status = 502;
      return;
    }
    ++forwarded_;
    res.status = r->status;
    res.set_content(r->body, r->get_header_value("Content-Type"));
  }

  std::string host_;
  int upstream_port_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  Mode mode_ = Mode::Forward;
  bool stopping_ = false;
  std::atomic<int> held_patches_{0}, failed_{0}, forwarded_{0};
};

}  // namespace weft::agent::testing
