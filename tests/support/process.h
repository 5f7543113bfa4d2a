// Test support: real peer processes (ibsim, opensm, prometheus, kube-lite, weft
// binaries) started on loopback, read line by line, and always stopped.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace weft::testing {

class Process {
 public:
  struct Options {
    std::vector<std::string> argv;                 // argv[0] is looked up in PATH
    std::map<std::string, std::string> env;        // added to (or overriding) the current env
    std::string cwd;
    bool keep_stdin_open = true;                   // ibsim reads console commands on stdin
    bool merge_stderr = true;                      // stderr joins the captured output
    std::string log_file;                          // if set, output also goes here
  };

  explicit Process(Options options);
  ~Process();  // stop(): SIGTERM, short grace, then SIGKILL
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  bool running();
  // Waits until a captured line matches; returns it, or nullopt on timeout or exit.
  std::optional<std::string> wait_for_line(const std::regex& re, std::chrono::milliseconds timeout);
  std::vector<std::string> lines();   // everything captured so far
  std::string output();               // same, joined with '\n'
  void write_stdin(const std::string& text);
  // Sends SIGTERM (or sig), waits up to grace, then SIGKILL. Returns the exit status
  // as from waitpid, or -1 when it had to be killed.
  int stop(std::chrono::milliseconds grace = std::chrono::milliseconds(2000), int sig = 15);
  // Waits for a natural exit; returns the exit code (128+signal when signalled), nullopt on timeout.
  std::optional<int> wait(std::chrono::milliseconds timeout);

 private:
  void reader();
  Options opt_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int out_fd_ = -1;
  std::thread reader_thread_;
  std::mutex mu_;
  std::vector<std::string> lines_;
  std::string partial_;
  bool eof_ = false;
  std::optional<int> status_;
};

// A TCP port on 127.0.0.1 that was free a moment ago.
int free_port();

// This process's environment with `extra` set on top, as KEY=VALUE strings for execve.
std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra);
// argv/envp for execve: pointers into `v`, null-terminated; valid while `v` lives.
std::vector<char*> c_strings(std::vector<std::string>& v);

// Absolute path of an executable in PATH (or the given absolute path), or "" when missing.
std::string find_tool(const std::string& name);

// A temporary directory removed with everything in it on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "weft-test");
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Path of a built weft binary under the build tree, e.g. binary("node-agent/weft-agent").
std::string binary(const std::string& relative);
std::string source_path(const std::string& relative);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& content);

// Runs a command to completion, capturing stdout+stderr; returns {exit code, output}.
std::pair<int, std::string> run_command(const std::vector<std::string>& argv,
                                        std::chrono::milliseconds timeout = std::chrono::seconds(60),
                                        const std::map<std::string, std::string>& env = {});

// A plain HTTP GET on loopback: {status, body}; status 0 on connection failure.
std::pair<int, std::string> http_get(const std::string& url,
                                     std::chrono::milliseconds timeout = std::chrono::seconds(5));

// Reasons an integration test must skip here, or "" when it can run.
std::string need_root();
std::string need_tools(const std::vector<std::string>& names);

}  // namespace weft::testing

// Skips the current test with the reason when it is not empty.
#define WEFT_SKIP_UNLESS(reason_expr)                       \
  do {                                                      \
    const std::string weft_skip_reason_ = (reason_expr);    \
    if (!weft_skip_reason_.empty()) GTEST_SKIP() << weft_skip_reason_; \
  } while (0)
