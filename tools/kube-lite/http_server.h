// cpp-httplib's server with a connection loop of kube-lite's own. cpp-httplib 0.11 waits
// for a kept-alive connection's next request by polling it every 10 ms with a 1 ms sleep
// in between, and polls again before every read and write: with the few dozen connections
// a scheduler, a descheduler and a client keep open, that was thousands of wake-ups a
// second and a fifth of kube-lite's CPU while it served a gang's bindings. Here a
// connection waits for its next request in one poll() (woken when the server stops),
// reads and writes block under the socket's timeouts, and a response's headers leave in
// one send with its body. What is sent and when is unchanged.
#pragma once

#include <httplib.h>

namespace weft::kube_lite {

class HttpServer : public httplib::Server {
 public:
  HttpServer();
  ~HttpServer() override;
  // Closes every idle kept-alive connection and stops listening.
  void shut_down();

 private:
  bool process_and_close_socket(socket_t sock) override;

  int wake_fd_ = -1;   // readable once shut_down() ran
};

}  // namespace weft::kube_lite
