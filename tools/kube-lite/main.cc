// kube-lite: the Kubernetes API stand-in for tests and the demo (README.md here).
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <regex>
#include <thread>

#include <CLI/CLI.hpp>

#include "common/signals.h"
#include "kube/scenario.h"
#include "tools/kube-lite/output_files.h"
#include "tools/kube-lite/server.h"

namespace {

using namespace weft::kube_lite;

int fail(const std::string& message) {
  std::fprintf(stderr, "kube-lite: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kube-lite: a small Kubernetes API server for tests and demos"};
  std::string listen = "127.0.0.1:0", state, kubeconfig_out, dump, tokens, request_log;
  ServerOptions opts;
  int latency = 0, drop_after = 0, bookmark_ms = 1000;
  size_t window = 100000;
  app.add_option("--listen", listen, "HOST:PORT to listen on (port 0: a free one)");
  app.add_option("--state", state, "scenario file (YAML documents or a JSON List) to start from");
  app.add_option("--kubeconfig-out", kubeconfig_out, "write a kubeconfig for this server here");
  app.add_option("--dump", dump, "on SIGTERM/SIGINT, write every object here (loadable by --state)");
  app.add_option("--tokens", tokens, "bearer tokens with rules (YAML/JSON list); without it everything is allowed");
  app.add_option("--fail-rate", opts.fail_rate, "share of non-watch requests answered 500 or 429")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--retry-after", opts.retry_after_seconds, "Retry-After seconds on injected 429s")
      ->check(CLI::Range(0, 3600));
  app.add_option("--latency", latency, "milliseconds added to every request")->check(CLI::Range(0, 600000));
  app.add_option("--drop-watch-after", drop_after, "close every watch stream after N events (0: never)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--request-log", request_log, "append one JSON line per request here");
  app.add_option("--seed", opts.seed, "seed for injected faults and generated names");
  app.add_option("--watch-window", window, "change events kept for watches (older versions get 410 Gone)")
      ->check(CLI::Range(size_t{1}, size_t{100000000}));
  app.add_option("--bookmark-interval-ms", bookmark_ms, "idle time before a watch gets a BOOKMARK")
      ->check(CLI::Range(10, 3600000));
  app.add_option("--kill-after-writes", opts.kill_after_writes,
                 "crash tests: SIGKILL the process in --kill-pid-file once this many writes succeeded (0: off)")
      ->check(CLI::Range(0, 1 << 30));
  app.add_option("--kill-pid-file", opts.kill_pid_file, "file holding the pid --kill-after-writes kills");
  app.add_option("--kill-writes-matching", opts.kill_writes_matching,
                 "count only writes whose path matches this regex (default: every write)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "kube-lite: %s\n", e.what());
    return 2;
  }
  if (opts.kill_after_writes > 0 && opts.kill_pid_file.empty()) return fail("--kill-after-writes needs --kill-pid-file");
  try {
    std::regex check(opts.kill_writes_matching);
  } catch (const std::regex_error& e) {
    return fail("--kill-writes-matching '" + opts.kill_writes_matching + "': " + e.what());
  }
  opts.latency_ms = latency;
  opts.drop_watch_after = static_cast<size_t>(drop_after);
  opts.bookmark_interval = std::chrono::milliseconds(bookmark_ms);

  auto colon = listen.rfind(':');
  if (colon == std::string::npos) return fail("--listen " + listen + ": expected HOST:PORT");
  std::string host = listen.substr(0, colon);
  int port = -1;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
  }
  if (port < 0 || port > 65535) return fail("--listen " + listen + ": invalid port");

  Authenticator auth;
  if (!tokens.empty()) {
    auto a = Authenticator::load_file(tokens);
    if (!a) return fail(a.message());
    auth = std::move(*a);
  }
  ResourceTypes types;
  Store store(types.all().size(), window);
  Registry registry(types, store, opts.seed);
  if (!state.empty()) {
    auto objects = weft::kube::load_objects_file(state);
    if (!objects) return fail("--state " + objects.message());
    if (auto loaded = registry.load(std::move(*objects)); !loaded) return fail("--state " + loaded.message());
  }
  RequestLog log;
  if (!request_log.empty())
    if (auto s = log.open(request_log); !s) return fail(s.message());

  // Signals go to the thread that waits for them, not to the server threads.
  weft::StopSignal stop;

  Server server(registry, auth, opts, request_log.empty() ? nullptr : &log);
  auto bound = server.bind(host, port);
  if (!bound) return fail(bound.message());
  std::string url = "http://" + host + ":" + std::to_string(*bound);
  if (!kubeconfig_out.empty())
    if (auto s = write_file_atomically(kubeconfig_out, kubeconfig_for(url)); !s) return fail("--kubeconfig-out " + s.message());
  std::thread serving([&] { server.run(); });
  std::printf("listening on %s\n", url.c_str());
  std::fflush(stdout);

  const int sig = stop.wait();
  std::fprintf(stderr, "kube-lite: signal %d, stopping\n", sig);
  server.stop();
  int code = 0;
  if (!dump.empty()) {
    if (auto s = write_dump(dump, registry); !s) code = fail("--dump " + s.message());
  }
  // Not joined: cpp-httplib keeps idle keep-alive connections until their timeout, and
  // nothing is left to flush once the dump is written.
  std::fflush(nullptr);
  std::_Exit(code);
}
