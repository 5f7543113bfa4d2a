// Decodes a list of 5,000 Nodes and 100,000 Pods and keeps them, printing time and peak
// RSS for: the real informer path (HTTP list through weft::kube::Client into the
// Informer cache), the same without stripping managedFields, and the naive baseline
// (json::parse of the same bytes into one generic tree). Each mode runs in its own
// forked process so peak RSS is its own; the input bytes are generated before the peak
// counter is reset, so "peak over input" is what decoding and caching cost.
#include <malloc.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <httplib.h>

#include "bench/kube_client/objects.h"
#include "kube/client/informer.h"
#include "kube/client/list_decoder.h"
#include "scheduler/app/run_cache.h"

namespace {

using nlohmann::json;

long status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

struct Measure {
  double seconds = 0;
  size_t objects = 0;
  long before_kib = 0, peak_kib = 0, after_kib = 0;
  double server_load_seconds = 0;   // kube-lite mode: --state load until "listening on"
  long server_peak_kib = 0;         // kube-lite mode: the server's own peak RSS
  double heap_in_use_bytes = 0;     // kube-lite modes: glibc's in-use heap, after minus before
};

double heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return static_cast<double>(mi.uordblks + mi.hblkhd);
}

struct Inputs {
  std::string nodes, pods;
};

Inputs generate(int nodes, int pods) {
  Inputs in;
  in.nodes = weft::bench::make_list_body("NodeList", nodes, [](int i) { return weft::bench::make_node(i, 1000 + i); }, 5000000);
  in.pods = weft::bench::make_list_body(
      "PodList", pods, [nodes](int i) { return weft::bench::make_pod(i, nodes, 2000000 + i); }, 5000000);
  return in;
}

// The real path: an HTTP server (in this process) returns the list; Informer::relist()
// lists through Client (rate limit, retries, streaming item decode) into its cache.
// What a scheduler-style consumer keeps: no managedFields, no node image lists, no
// container statuses or env (it reads requests, affinity, tolerations, phase, labels).
void trim_for_scheduling(json& o) {
  weft::kube::strip_managed_fields(o);
  if (auto st = o.find("status"); st != o.end() && st->is_object()) {
    st->erase("images");
    st->erase("containerStatuses");
    st->erase("nodeInfo");
  }
  if (auto sp = o.find("spec"); sp != o.end() && sp->is_object()) {
    sp->erase("volumes");
    if (auto cs = sp->find("containers"); cs != sp->end() && cs->is_array()) {
      for (auto& c : *cs) {
        c.erase("env");
        c.erase("volumeMounts");
        c.erase("command");
      }
    }
  }
}

// Scheduler: weft-scheduler run's projection of pods and nodes, applied to each parsed
// tree (to_cached_form) or while parsing (InformerOptions::keep, as run does), MessagePack.
enum class Keep { All, NoManagedFields, Trimmed, SchedulerAfterParse, SchedulerWhileParsing };

// Exits on a failed list; else the number of cached objects, with both caches kept
// alive until measured (leaked on purpose in this child).
size_t keep_listed(const weft::Status& a, const weft::Status& b, std::unique_ptr<weft::kube::Informer>& nodes,
                   std::unique_ptr<weft::kube::Informer>& pods) {
  if (!a || !b) {
    std::fprintf(stderr, "list failed: %s %s\n", a ? "" : a.message().c_str(), b ? "" : b.message().c_str());
    _exit(2);
  }
  size_t n = nodes->size() + pods->size();
  nodes.release();
  pods.release();
  return n;
}

size_t run_informer(const Inputs& in, Keep keep, std::chrono::steady_clock::time_point& done) {
  httplib::Server server;
  auto serve = [](const std::string* body) {
    return [body](const httplib::Request&, httplib::Response& res) {
      res.set_content_provider(body->size(), "application/json",
                               [body](size_t offset, size_t length, httplib::DataSink& sink) {
                                 return sink.write(body->data() + offset, std::min(length, body->size() - offset));
                               });
    };
  };
  server.Get("/api/v1/nodes", serve(&in.nodes));
  server.Get("/api/v1/pods", serve(&in.pods));
  int port = server.bind_to_any_port("127.0.0.1");
  std::thread t([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  weft::kube::ClientConfig cfg;
  cfg.server = *weft::kube::parse_server_url("http://127.0.0.1:" + std::to_string(port));
  weft::kube::ClientOptions opts;
  opts.timeout = std::chrono::minutes(5);
  auto client = weft::kube::Client::from_config(cfg, opts);
  weft::kube::InformerOptions io;
  io.page_size = 0;  // one response, as the same bytes the baseline parses
  if (keep == Keep::All) io.transform = nullptr;
  if (keep == Keep::Trimmed) io.transform = trim_for_scheduling;
  auto options_for = [&](const char* kind) {
    weft::kube::InformerOptions o = io;
    if (keep != Keep::SchedulerAfterParse && keep != Keep::SchedulerWhileParsing) return o;
    o.compact = true;
    o.transform = [kind](json& object) { weft::scheduler::to_cached_form(object, "v1", kind); };
    if (keep == Keep::SchedulerWhileParsing) o.keep = weft::scheduler::scheduler_projection(kind);
    return o;
  };
  auto nodes = std::make_unique<weft::kube::Informer>(**client, weft::kube::resources::nodes(), "", options_for("Node"));
  auto pods = std::make_unique<weft::kube::Informer>(**client, weft::kube::resources::pods(), "", options_for("Pod"));
  auto a = nodes->relist();
  auto b = pods->relist();
  done = std::chrono::steady_clock::now();  // the server's shutdown waits out keep-alive: not ours to time
  server.stop();
  t.join();
  return keep_listed(a, b, nodes, pods);
}

// The same objects as one JSON List for kube-lite --state, written item by item.
void write_state_file(const std::string& path, int nodes, int pods) {
  std::ofstream out(path);
  out << "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
  for (int i = 0; i < nodes; ++i) out << (i ? "," : "") << weft::bench::make_node(i, 1000 + i).dump();
  for (int i = 0; i < pods; ++i) out << "," << weft::bench::make_pod(i, nodes, 2000000 + i).dump();
  out << "]}";
}

// kube-lite started on the state file (its load time and peak RSS), then `list` against
// it (returns the objects kept); this process's peak and retained RSS are read before the
// server goes.
template <typename List>
size_t with_kube_lite(const std::string& binary, const std::string& state, Measure& m, List&& list) {
  int out[2];
  if (pipe(out) != 0) _exit(4);
  auto spawned = std::chrono::steady_clock::now();
  pid_t server = fork();
  if (server == 0) {
    dup2(out[1], 1);
    close(out[0]);
    execl(binary.c_str(), binary.c_str(), "--listen", "127.0.0.1:0", "--state", state.c_str(), (char*)nullptr);
    _exit(127);
  }
  close(out[1]);
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
  m.server_load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - spawned).count();
  auto at = line.find("http://");
  if (at == std::string::npos) {
    std::fprintf(stderr, "kube-lite did not start: %s\n", line.c_str());
    kill(server, SIGKILL);
    _exit(5);
  }
  weft::kube::ClientConfig cfg;
  cfg.server = *weft::kube::parse_server_url(line.substr(at));
  weft::kube::ClientOptions opts;
  opts.timeout = std::chrono::minutes(5);
  opts.qps = 0;
  // Kept (leaked) with what it listed: informers' threads may still use it.
  auto* client = weft::kube::Client::from_config(cfg, opts)->release();
  reset_peak_rss();
  const double heap_before = heap_in_use();
  auto start = std::chrono::steady_clock::now();
  size_t objects = list(*client);
  m.heap_in_use_bytes = heap_in_use() - heap_before;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.peak_kib = status_kib("VmHWM");
  m.after_kib = status_kib("VmRSS");
  std::ifstream status("/proc/" + std::to_string(server) + "/status");
  std::string l;
  while (std::getline(status, l))
    if (l.rfind("VmHWM:", 0) == 0) m.server_peak_kib = std::stol(l.substr(6));
  kill(server, SIGKILL);
  waitpid(server, nullptr, 0);
  return objects;
}

// What a generic informer keeps, listing in pages of 500 as a real informer does.
size_t list_informers(weft::kube::Client& client) {
  weft::kube::InformerOptions io;
  io.page_size = 500;
  auto nodes = std::make_unique<weft::kube::Informer>(client, weft::kube::resources::nodes(), "", io);
  auto pods = std::make_unique<weft::kube::Informer>(client, weft::kube::resources::pods(), "", io);
  auto a = nodes->relist();
  auto b = pods->relist();
  return keep_listed(a, b, nodes, pods);
}

// What weft-scheduler run keeps: its ClusterCache (every watched kind, typed records with
// pooled strings) until synced.
size_t list_scheduler_cache_as(weft::kube::Client& client, bool from_text) {
  auto* cache = new weft::scheduler::ClusterCache(client, {.decode_from_text = from_text});   // kept, as above
  if (auto s = cache->start(); !s || !cache->wait_for_sync(std::chrono::minutes(5))) {
    std::fprintf(stderr, "scheduler cache did not sync\n");
    _exit(6);
  }
  return cache->decoded_size("Node") + cache->decoded_size("Pod");
}
size_t list_scheduler_cache(weft::kube::Client& client) { return list_scheduler_cache_as(client, true); }
// The same cache decoding each Pod and Node from a projected tree (before text decoding).
size_t list_scheduler_cache_tree(weft::kube::Client& client) { return list_scheduler_cache_as(client, false); }

size_t run_naive(const Inputs& in) {
  auto* nodes = new json(json::parse(in.nodes));
  auto* pods = new json(json::parse(in.pods));
  return (*nodes)["items"].size() + (*pods)["items"].size();
}

size_t run_stream_decode(const Inputs& in) {
  auto* cache = new std::vector<json>();
  auto keep = [&](json&& o) {
    weft::kube::strip_managed_fields(o);
    cache->push_back(std::move(o));
  };
  auto a = weft::kube::decode_list(in.nodes, keep);
  auto b = weft::kube::decode_list(in.pods, keep);
  if (!a || !b) _exit(2);
  return cache->size();
}

// Modes that list from kube-lite.
bool served(const std::string& mode) {
  return mode == "kube-lite" || mode == "scheduler-cache" || mode == "scheduler-cache-tree";
}

// The scheduler's decode alone, over the listed pods and nodes in memory: each item to a
// typed record kept, from its text (as run decodes now) or from a projected tree (before).
size_t run_typed_decode(const Inputs& in, bool from_text) {
  auto* pools = new weft::scheduler::DecodePools();
  auto* kept = new std::vector<weft::scheduler::DecodedPtr>();
  for (const auto& [body, kind] : {std::pair{&in.nodes, "Node"}, std::pair{&in.pods, "Pod"}}) {
    const json keep = weft::scheduler::scheduler_projection(kind);
    auto listed = from_text ? weft::kube::decode_list_raw(*body,
                                                          [&](std::string_view text, weft::kube::ObjectIdentity&& id) {
                                                            kept->push_back(weft::scheduler::decode_object_text(
                                                                kind, id.key(), text, pools));
                                                          })
                            : weft::kube::decode_list(
                                  *body,
                                  [&](json&& o) {
                                    weft::scheduler::to_cached_form(o, "v1", kind);
                                    kept->push_back(weft::scheduler::decode_object(o, pools));
                                  },
                                  keep);
    if (!listed) _exit(2);
  }
  for (const auto& d : *kept)
    if (d->undecodable()) _exit(4);
  return kept->size();
}

struct KubeLiteRun {
  std::string binary, state;
};

Measure run_mode(const std::string& mode, int nodes, int pods, const KubeLiteRun& kube_lite) {
  int fds[2];
  if (pipe(fds) != 0) std::abort();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Measure m;
    if (served(mode)) {
      m.before_kib = status_kib("VmRSS");
      m.objects = with_kube_lite(kube_lite.binary, kube_lite.state, m,
                                 mode == "kube-lite"         ? list_informers
                                 : mode == "scheduler-cache" ? list_scheduler_cache
                                                             : list_scheduler_cache_tree);
      if (write(fds[1], &m, sizeof m) != sizeof m) _exit(3);
      _exit(0);
    }
    Inputs in = generate(nodes, pods);
    m.before_kib = status_kib("VmRSS");
    reset_peak_rss();
    auto start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point done{};
    if (mode == "informer") m.objects = run_informer(in, Keep::NoManagedFields, done);
    if (mode == "informer-keep-managed-fields") m.objects = run_informer(in, Keep::All, done);
    if (mode == "informer-trimmed") m.objects = run_informer(in, Keep::Trimmed, done);
    if (mode == "scheduler-project-after-parse") m.objects = run_informer(in, Keep::SchedulerAfterParse, done);
    if (mode == "scheduler-project-while-parsing") m.objects = run_informer(in, Keep::SchedulerWhileParsing, done);
    if (mode == "stream-decode") m.objects = run_stream_decode(in);
    if (mode == "typed-decode-text") m.objects = run_typed_decode(in, true);
    if (mode == "typed-decode-tree") m.objects = run_typed_decode(in, false);
    if (mode == "naive-tree") m.objects = run_naive(in);
    if (done == std::chrono::steady_clock::time_point{}) done = std::chrono::steady_clock::now();
    m.seconds = std::chrono::duration<double>(done - start).count();
    m.peak_kib = status_kib("VmHWM");
    m.after_kib = status_kib("VmRSS");
    if (write(fds[1], &m, sizeof m) != sizeof m) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  Measure m;
  ssize_t got = read(fds[0], &m, sizeof m);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got != sizeof m || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "mode %s failed (status %d)\n", mode.c_str(), status);
    std::exit(1);
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kube client list decode + informer cache benchmark"};
  int nodes = 5000, pods = 100000;
  std::vector<std::string> modes = {"informer", "informer-keep-managed-fields", "informer-trimmed",
                                    "scheduler-project-after-parse", "scheduler-project-while-parsing",
                                    "stream-decode", "naive-tree"};
  app.add_option("--nodes", nodes, "Nodes in the list");
  app.add_option("--pods", pods, "Pods in the list");
  app.add_option("--modes", modes, "Modes to run (also: kube-lite, scheduler-cache, scheduler-cache-tree, typed-decode-text, typed-decode-tree)");
  KubeLiteRun kube_lite{WEFT_KUBE_LITE_BINARY, ""};
  app.add_option("--kube-lite", kube_lite.binary, "kube-lite binary for the kube-lite mode");
  std::string write_state;
  app.add_option("--write-state", write_state, "only write the kube-lite --state file of this size here and exit");
  CLI11_PARSE(app, argc, argv);
  if (!write_state.empty()) {
    write_state_file(write_state, nodes, pods);
    return 0;
  }
  char state_dir[] = "/tmp/weft-bench-kube-lite-XXXXXX";
  if (std::any_of(modes.begin(), modes.end(), served)) {
    if (!mkdtemp(state_dir)) return 1;
    kube_lite.state = std::string(state_dir) + "/state.json";
    write_state_file(kube_lite.state, nodes, pods);
  }

  {
    Inputs in = generate(nodes, pods);
    std::printf("input: %d Nodes (%.1f MiB JSON), %d Pods (%.1f MiB JSON)\n", nodes, in.nodes.size() / 1048576.0,
                pods, in.pods.size() / 1048576.0);
  }
  std::printf("%-30s %9s %8s %12s %12s %14s\n", "mode", "objects", "time_s", "peak_MiB", "peak_over_in",
              "retained_MiB");
  for (const auto& mode : modes) {
    Measure m = run_mode(mode, nodes, pods, kube_lite);
    std::printf("%-30s %9zu %8.2f %12.1f %12.1f %14.1f\n", mode.c_str(), m.objects, m.seconds, m.peak_kib / 1024.0,
                (m.peak_kib - m.before_kib) / 1024.0, (m.after_kib - m.before_kib) / 1024.0);
    if (served(mode))
      std::printf("  kube-lite server: --state load %.2f s, server peak RSS %.1f MiB; the row above is %s\n",
                  m.server_load_seconds, m.server_peak_kib / 1024.0,
                  mode == "kube-lite" ? "a generic informer listing from it in pages of 500"
                  : mode == "scheduler-cache"
                      ? "weft-scheduler run's cache until synced, pods decoded from text"
                      : "the same cache with pods and nodes decoded from projected trees (the baseline)");
    if (served(mode) && m.objects)
      std::printf("  heap in use (glibc mallinfo2): %.1f MiB, %.0f bytes per cached object\n",
                  m.heap_in_use_bytes / 1048576.0, m.heap_in_use_bytes / m.objects);
    std::fflush(stdout);
  }
  if (!kube_lite.state.empty()) {
    std::remove(kube_lite.state.c_str());
    rmdir(state_dir);
  }
  return 0;
}
