// cpp-httplib's server with a connection loop of kube-lite's own. cpp-httplib 0.11 waits
// for a kept-alive connection's next request by polling it every 10 ms with a 1 ms sleep
// in between, and polls again before every read and write: with the few dozen connections
// a scheduler, a descheduler and a client keep open, that was thousands of wake-ups a
// second and a fifth of kube-lite's CPU while it served a gang's bindings. Here a
// connection blocks in recv() for its next request (the keep-alive timeout is the
// socket's receive timeout; stopping the server shuts the sockets' read side), reads and
// writes block under the socket's timeouts, and a response's headers leave in one send
// with its body. What is sent and when is unchanged.
#pragma once

#include <httplib.h>

#include <mutex>
#include <set>

namespace weft::kube_lite {

class HttpServer : public httplib::Server {
 public:
  // Closes every idle kept-alive connection and stops listening.
  void shut_down();

 private:
  bool process_and_close_socket(socket_t sock) override;

  std::mutex mu_;
  std::set<socket_t> open_;   // connections being served
  bool stopping_ = false;
};

}  // namespace weft::kube_lite
