// The HTTP exchange under the client, behind an interface so unit tests can count or
// fake it. HttpTransport is the real one (cpp-httplib, OpenSSL for https).
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "common/result.h"
#include "kube/client/rate_limit.h"

namespace weft::kube {

struct HttpRequest {
  std::string method;         // GET, POST, PUT, PATCH, DELETE
  std::string path;           // path plus query, already encoded
  std::string body;
  std::string content_type;
  // When set, the answer's body is received into this string's memory (taken): a big
  // list's pages reuse one another's instead of fresh memory.
  std::string* body_room = nullptr;
};

struct HttpResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;   // lower-case names
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

// Lets another thread end a streaming request early (an informer being stopped).
class CancelToken {
 public:
  void cancel();
  bool cancelled() const { return cancelled_.load(); }
  // The transport registers how to interrupt its blocked read; cleared when done.
  void set_interrupt(std::function<void()> interrupt);

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::function<void()> interrupt_;
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Connection failures come back as an Error naming the address (code 0); any HTTP
  // status, good or bad, comes back as a response.
  virtual Result<HttpResponse> send(const HttpRequest& request, Clock::time_point deadline) = 0;
  // Streams the body of a 2xx response to on_chunk (return false to stop); a non-2xx
  // body is collected in the response instead. The deadline bounds connecting and
  // each read; idle_timeout bounds the gap between chunks.
  virtual Result<HttpResponse> stream(const HttpRequest& request, Millis idle_timeout,
                                      const std::function<bool(std::string_view)>& on_chunk,
                                      CancelToken* cancel) = 0;
  // "https://10.0.0.1:6443" for error messages.
  virtual std::string address() const = 0;
};

struct ClientConfig;
// Builds the real transport; fails when TLS material does not load (naming which).
Result<std::shared_ptr<Transport>> make_http_transport(const ClientConfig& config);

}  // namespace weft::kube
