// The real transport: cpp-httplib over plain TCP or OpenSSL, a small pool of kept-alive
// connections for calls, a dedicated connection per watch stream.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <httplib.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "kube/client/config.h"
#include "kube/client/plain_http.h"
#include "kube/client/transport.h"

namespace weft::kube {

void CancelToken::cancel() {
  cancelled_.store(true);
  std::lock_guard lock(mu_);
  if (interrupt_) interrupt_();
}

void CancelToken::set_interrupt(std::function<void()> interrupt) {
  std::lock_guard lock(mu_);
  interrupt_ = std::move(interrupt);
}

namespace {

// Enough kept-alive connections for a scheduler writing bindings with --bind-concurrency
// 64 without reconnecting; idle ones beyond this are closed.
constexpr size_t kMaxIdleConnections = 64;

std::string openssl_error() {
  unsigned long e = ERR_get_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return buf;
}

struct X509Deleter { void operator()(X509* x) const { X509_free(x); } };
struct KeyDeleter { void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); } };
struct BioDeleter { void operator()(BIO* b) const { BIO_free(b); } };
using X509Ptr = std::unique_ptr<X509, X509Deleter>;
using KeyPtr = std::unique_ptr<EVP_PKEY, KeyDeleter>;
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

Result<std::vector<X509Ptr>> parse_certificates(const std::string& pem, const std::string& what) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  std::vector<X509Ptr> certs;
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) certs.emplace_back(x);
  ERR_clear_error();  // the loop ends on an expected "no start line"
  if (certs.empty()) return make_error(what + ": no PEM certificate found");
  return certs;
}

Result<KeyPtr> parse_key(const std::string& pem, const std::string& what) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  EVP_PKEY* k = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
  if (!k) return make_error(what + ": cannot read private key: " + openssl_error());
  return KeyPtr(k);
}

// A bearer token that follows its file: re-read whenever the file's mtime or size changes
// (the kubelet rotates projected service-account tokens in place).
class TokenSource {
 public:
  TokenSource(std::string token, std::string file) : token_(std::move(token)), file_(std::move(file)) {}
  std::string current() {
    if (file_.empty()) return token_;
    struct stat st {};
    std::lock_guard lock(mu_);
    if (::stat(file_.c_str(), &st) == 0 &&
        (st.st_mtim.tv_sec != mtime_.tv_sec || st.st_mtim.tv_nsec != mtime_.tv_nsec || st.st_size != size_)) {
      std::ifstream in(file_);
      std::ostringstream ss;
      ss << in.rdbuf();
      std::string t = ss.str();
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
      if (in || !t.empty()) {
        token_ = t;
        mtime_ = st.st_mtim;
        size_ = st.st_size;
      }
    }
    return token_;
  }

 private:
  std::mutex mu_;
  std::string token_;
  std::string file_;
  timespec mtime_{};
  off_t size_ = -1;
};

void set_timeouts(httplib::ClientImpl& cli, Millis connect, Millis read) {
  auto clamp = [](Millis m) { return std::max(m, Millis(1)); };
  cli.set_connection_timeout(clamp(connect));
  cli.set_read_timeout(clamp(read));
  cli.set_write_timeout(clamp(read));
}

std::map<std::string, std::string> lower_headers(const httplib::Headers& h) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : h) {
    std::string key = k;
    std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
    out[key] = v;
  }
  return out;
}

class HttpTransport : public Transport {
 public:
  HttpTransport(const ClientConfig& config, std::vector<X509Ptr> ca, X509Ptr cert, KeyPtr key)
      : server_(config.server),
        insecure_(config.insecure_skip_tls_verify),
        ca_(std::move(ca)),
        cert_(std::move(cert)),
        key_(std::move(key)),
        token_(config.token, config.token_file),
        provider_(config.token_provider) {}

  std::string address() const override { return server_.url(); }

  Result<HttpResponse> send(const HttpRequest& request, Clock::time_point deadline) override {
    auto remaining = std::chrono::duration_cast<Millis>(deadline - Clock::now());
    if (remaining <= Millis(0)) return make_error("deadline exceeded before sending to " + address());
    auto bearer = provided_token();
    if (!bearer) return bearer.error();
    if (server_.scheme == "http") return send_plain(request, *bearer, deadline);
    auto cli = acquire();
    set_timeouts(*cli, remaining, remaining);
    httplib::Request req = make_request(request, *bearer);
    req.progress = [deadline](uint64_t, uint64_t) { return Clock::now() < deadline; };
    httplib::Response res;
    if (request.body_room) {   // cpp-httplib appends the body it receives
      res.body = std::move(*request.body_room);
      res.body.clear();
    }
    httplib::Error err = httplib::Error::Success;
    bool ok = cli->send(req, res, err);
    if (!ok) {
      // Do not reuse a connection in an unknown state.
      return connection_error(err, Clock::now() >= deadline);
    }
    release(std::move(cli));
    if (res.status == 401 && provider_) provider_->unauthorized();
    HttpResponse out;
    out.status = res.status;
    out.body = std::move(res.body);
    out.headers = lower_headers(res.headers);
    return out;
  }

  Result<HttpResponse> stream(const HttpRequest& request, Millis idle_timeout,
                              const std::function<bool(std::string_view)>& on_chunk, CancelToken* cancel) override {
    auto bearer = provided_token();
    if (!bearer) return bearer.error();
    std::shared_ptr<httplib::ClientImpl> cli = make_client();
    set_timeouts(*cli, std::min(idle_timeout, Millis(10000)), idle_timeout);
    if (cancel) {
      if (cancel->cancelled()) return make_error("watch cancelled", -1);
      cancel->set_interrupt([cli] { cli->stop(); });
    }
    httplib::Request req = make_request(request, *bearer);
    HttpResponse out;
    req.response_handler = [&](const httplib::Response& r) {
      out.status = r.status;
      out.headers = lower_headers(r.headers);
      return true;
    };
    req.content_receiver = [&](const char* data, size_t len, uint64_t, uint64_t) {
      if (cancel && cancel->cancelled()) return false;
      if (out.status >= 200 && out.status < 300) return on_chunk(std::string_view(data, len));
      out.body.append(data, len);
      return true;
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    bool ok = cli->send(req, res, err);
    if (cancel) cancel->set_interrupt(nullptr);
    if (out.status == 401 && provider_) provider_->unauthorized();
    if (cancel && cancel->cancelled()) return make_error("watch cancelled", -1);
    if (!ok && out.status == 0) return connection_error(err, false);
    if (!ok && err != httplib::Error::Canceled) {
      // The stream broke after it started (server went away, idle timeout): the caller
      // treats this as the end of the watch and resumes from its last version.
      out.headers["x-weft-stream-error"] = httplib::to_string(err);
    }
    return out;
  }

 private:
  Error connection_error(httplib::Error err, bool deadline_passed) const {
    std::string why = deadline_passed ? "deadline exceeded" : httplib::to_string(err);
    if (err == httplib::Error::SSLServerVerification) why += " (server certificate not trusted by the configured CA)";
    return make_error("cannot reach API server " + address() + ": " + why);
  }

  // http://: a connection of our own (plain_http.h), kept alive in plain_idle_.
  Result<HttpResponse> send_plain(const HttpRequest& request, const std::string& bearer, Clock::time_point deadline) {
    std::unique_ptr<PlainHttpConnection> conn;
    {
      std::lock_guard lock(pool_mu_);
      while (!conn && !plain_idle_.empty()) {
        conn = std::move(plain_idle_.back());
        plain_idle_.pop_back();
        if (!conn->still_open()) conn.reset();
      }
    }
    if (!conn) {
      auto opened = PlainHttpConnection::open(server_.host, server_.port, deadline);
      if (!opened) return make_error("cannot reach API server " + address() + ": " + opened.message());
      conn = std::move(*opened);
    }
    auto answered = conn->exchange(plain_head(request, bearer), request.body, deadline, request.body_room);
    if (!answered) return make_error("cannot reach API server " + address() + ": " + answered.message());
    if (conn->reusable()) {
      std::lock_guard lock(pool_mu_);
      if (plain_idle_.size() < kMaxIdleConnections) plain_idle_.push_back(std::move(conn));
    }
    if (answered->status == 401 && provider_) provider_->unauthorized();
    return answered;
  }

  // The request line and headers cpp-httplib would send (but Accept-Encoding: bodies
  // come back as they are).
  std::string plain_head(const HttpRequest& request, const std::string& bearer) {
    std::string head;
    head.reserve(256 + request.path.size());
    head.append(request.method).append(" ").append(server_.base_path).append(request.path).append(" HTTP/1.1\r\n");
    const bool v6 = server_.host.find(':') != std::string::npos && server_.host.front() != '[';
    head.append("Host: ").append(v6 ? "[" + server_.host + "]" : server_.host);
    if (server_.port != 80) head.append(":").append(std::to_string(server_.port));
    head.append("\r\nAccept: application/json\r\nUser-Agent: weft-kube-client/0.1\r\n");
    if (!request.content_type.empty()) head.append("Content-Type: ").append(request.content_type).append("\r\n");
    std::string token = bearer.empty() ? token_.current() : bearer;
    if (!token.empty()) head.append("Authorization: Bearer ").append(token).append("\r\n");
    if (!request.body.empty() || request.method == "POST" || request.method == "PUT" || request.method == "PATCH")
      head.append("Content-Length: ").append(std::to_string(request.body.size())).append("\r\n");
    head.append("\r\n");
    return head;
  }

  // The exec plugin's token ("" without one: then the static token or token file).
  Result<std::string> provided_token() {
    if (!provider_) return std::string();
    return provider_->token();
  }

  httplib::Request make_request(const HttpRequest& request, const std::string& bearer) {
    httplib::Request req;
    req.method = request.method;
    req.path = server_.base_path + request.path;
    req.body = request.body;
    req.headers.emplace("Accept", "application/json");
    req.headers.emplace("User-Agent", "weft-kube-client/0.1");
    if (!request.content_type.empty()) req.headers.emplace("Content-Type", request.content_type);
    std::string token = bearer.empty() ? token_.current() : bearer;
    if (!token.empty()) req.headers.emplace("Authorization", "Bearer " + token);
    return req;
  }

  std::shared_ptr<httplib::ClientImpl> make_client() {
    std::shared_ptr<httplib::ClientImpl> cli;
    if (server_.scheme == "https") {
      std::shared_ptr<httplib::SSLClient> ssl;
      if (cert_) {
        ssl = std::make_shared<httplib::SSLClient>(server_.host, server_.port, cert_.get(), key_.get());
      } else {
        ssl = std::make_shared<httplib::SSLClient>(server_.host, server_.port);
      }
      if (!ca_.empty()) {
        X509_STORE* store = X509_STORE_new();
        for (const auto& c : ca_) X509_STORE_add_cert(store, c.get());
        ssl->set_ca_cert_store(store);  // the SSL context takes ownership
      }
      ssl->enable_server_certificate_verification(!insecure_);
      cli = ssl;
    } else {
      cli = std::make_shared<httplib::ClientImpl>(server_.host, server_.port);
    }
    cli->set_keep_alive(true);
    cli->set_url_encode(false);  // paths arrive encoded
    cli->set_tcp_nodelay(true);
    return cli;
  }

  std::shared_ptr<httplib::ClientImpl> acquire() {
    {
      std::lock_guard lock(pool_mu_);
      if (!idle_.empty()) {
        auto cli = std::move(idle_.back());
        idle_.pop_back();
        return cli;
      }
    }
    return make_client();
  }

  void release(std::shared_ptr<httplib::ClientImpl> cli) {
    std::lock_guard lock(pool_mu_);
    if (idle_.size() < kMaxIdleConnections) idle_.push_back(std::move(cli));
  }

  ServerAddress server_;
  bool insecure_;
  std::vector<X509Ptr> ca_;
  X509Ptr cert_;
  KeyPtr key_;
  TokenSource token_;
  std::shared_ptr<TokenProvider> provider_;
  std::mutex pool_mu_;
  std::vector<std::shared_ptr<httplib::ClientImpl>> idle_;
  std::vector<std::unique_ptr<PlainHttpConnection>> plain_idle_;
};

}  // namespace

Result<std::shared_ptr<Transport>> make_http_transport(const ClientConfig& config) {
  std::vector<X509Ptr> ca;
  if (!config.ca_pem.empty()) {
    auto parsed = parse_certificates(config.ca_pem, config.source + ": certificate-authority " + config.ca_file);
    if (!parsed) return parsed.error();
    ca = std::move(*parsed);
  }
  X509Ptr cert;
  KeyPtr key;
  if (!config.client_cert_pem.empty()) {
    auto certs = parse_certificates(config.client_cert_pem, config.source + ": client-certificate");
    if (!certs) return certs.error();
    cert = std::move(certs->front());
    auto k = parse_key(config.client_key_pem, config.source + ": client-key");
    if (!k) return k.error();
    key = std::move(*k);
  }
  return std::shared_ptr<Transport>(std::make_shared<HttpTransport>(config, std::move(ca), std::move(cert), std::move(key)));
}

}  // namespace weft::kube
