#include "tests/support/process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <httplib.h>

extern char** environ;

namespace weft::testing {
std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

Process::Process(Options options) : opt_(std::move(options)) {
  if (opt_.argv.empty()) throw std::invalid_argument("Process: empty argv");
  std::string exe = find_tool(opt_.argv[0]);
  if (exe.empty()) throw std::runtime_error("Process: executable not found: " + opt_.argv[0]);
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("Process: pipe failed");
  auto env = merged_environment(opt_.env);
  auto args = opt_.argv;
  args[0] = exe;
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("Process: fork failed");
  if (pid_ == 0) {
    setpgid(0, 0);  // own process group, so stop() reaches its children too
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    if (opt_.merge_stderr) dup2(out_pipe[1], 2);
    if (!opt_.cwd.empty() && chdir(opt_.cwd.c_str()) != 0) _exit(127);
    auto cargs = c_strings(args);
    auto cenv = c_strings(env);
    execve(exe.c_str(), cargs.data(), cenv.data());
    _exit(127);
  }
  setpgid(pid_, pid_);
  close(in_pipe[0]);
  close(out_pipe[1]);
  stdin_fd_ = in_pipe[1];
  out_fd_ = out_pipe[0];
  if (!opt_.keep_stdin_open) {
    close(stdin_fd_);
    stdin_fd_ = -1;
  }
  reader_thread_ = std::thread([this] { reader(); });
}

Process::~Process() {
  stop();
  if (reader_thread_.joinable()) reader_thread_.join();
  if (out_fd_ >= 0) close(out_fd_);
  if (stdin_fd_ >= 0) close(stdin_fd_);
}

void Process::reader() {
  std::ofstream log;
  if (!opt_.log_file.empty()) log.open(opt_.log_file, std::ios::app);
  char buf[4096];
  for (;;) {
    ssize_t n = read(out_fd_, buf, sizeof buf);
    if (n <= 0) break;
    if (log) log.write(buf, n), log.flush();
    std::lock_guard<std::mutex> lock(mu_);
    partial_.append(buf, n);
    size_t pos;
    while ((pos = partial_.find('\n')) != std::string::npos) {
      lines_.push_back(partial_.substr(0, pos));
      partial_.erase(0, pos + 1);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!partial_.empty()) lines_.push_back(partial_), partial_.clear();
  eof_ = true;
}

bool Process::running() {
  if (status_) return false;
  int st = 0;
  pid_t r = waitpid(pid_, &st, WNOHANG);
  if (r == pid_) {
    status_ = st;
    return false;
  }
  return r == 0;
}

std::optional<std::string> Process::wait_for_line(const std::regex& re, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t seen = 0;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (; seen < lines_.size(); ++seen)
        if (std::regex_search(lines_[seen], re)) return lines_[seen];
      if (eof_) return std::nullopt;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::vector<std::string> Process::lines() {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

std::string Process::output() {
  std::string out;
  for (const auto& l : lines()) out += l + "\n";
  return out;
}

void Process::write_stdin(const std::string& text) {
  if (stdin_fd_ < 0) return;
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(stdin_fd_, p, left);
    if (n <= 0) break;
    p += n;
    left -= n;
  }
}

int Process::stop(std::chrono::milliseconds grace, int sig) {
  if (!running()) return status_.value_or(0);
  kill(-pid_, sig);
  kill(pid_, sig);
  if (auto st = wait(grace)) return *st;
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  int st = 0;
  waitpid(pid_, &st, 0);
  status_ = st;
  return -1;
}

std::optional<int> Process::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  int st = *status_;
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return st;
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    throw std::runtime_error("free_port: bind failed");
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

std::string find_tool(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = getenv("PATH");
  std::string p = path ? path : "";
  p += ":/usr/sbin:/sbin";
  std::stringstream ss(p);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (dir.empty()) continue;
    std::string full = dir + "/" + name;
    if (access(full.c_str(), X_OK) == 0) return full;
  }
  return "";
}

TempDir::TempDir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data())) throw std::runtime_error("TempDir: mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string binary(const std::string& relative) { return std::string(WEFT_TEST_BINARY_DIR) + "/" + relative; }
std::string source_path(const std::string& relative) { return std::string(WEFT_TEST_SOURCE_DIR) + "/" + relative; }

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path);
  out << content;
}

std::pair<int, std::string> run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                                        const std::map<std::string, std::string>& env) {
  Process p({.argv = argv, .env = env, .keep_stdin_open = false});
  auto code = p.wait(timeout);
  if (!code) {
    p.stop();
    return {-1, p.output() + "\n[timed out]"};
  }
  // Let the reader drain what is left in the pipe.
  for (int i = 0; i < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return {*code, p.output()};
}

std::pair<int, std::string> http_get(const std::string& url, std::chrono::milliseconds timeout) {
  auto scheme_end = url.find("://");
  auto path_start = url.find('/', scheme_end + 3);
  std::string base = url.substr(0, path_start);
  std::string path = path_start == std::string::npos ? "/" : url.substr(path_start);
  httplib::Client cli(base);
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout).count();
  cli.set_connection_timeout(secs, 0);
  cli.set_read_timeout(secs, 0);
  auto res = cli.Get(path);
  if (!res) return {0, ""};
  return {res->status, res->body};
}

std::string need_root() { return geteuid() == 0 ? "" : "needs root (euid is not 0)"; }

std::string need_tools(const std::vector<std::string>& names) {
  std::string missing;
  for (const auto& n : names)
    if (find_tool(n).empty()) missing += (missing.empty() ? "" : ", ") + n;
  return missing.empty() ? "" : "missing tool(s) on this machine: " + missing;
}

}  // namespace weft::testing
