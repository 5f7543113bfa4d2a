#include "tests/support/ibsim.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

namespace weft::testing {

namespace {

std::string unique_sockname() {
  static std::atomic<int> n{0};
  return "weft-" + std::to_string(getpid()) + "-" + std::to_string(n++);
}

}  // namespace

std::string need_ibsim() {
  std::string missing = need_tools({"ibsim", "opensm"});
  if (!missing.empty()) return missing;
  if (access(kUmad2simLibrary, R_OK) != 0) return std::string("missing ") + kUmad2simLibrary + " (ibsim-utils)";
  return "";
}

CommandResult run_capture(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                          std::chrono::milliseconds timeout) {
  CommandResult r;
  const auto start = std::chrono::steady_clock::now();
  std::string exe = find_tool(argv.at(0));
  if (exe.empty()) {
    r.err = "not found: " + argv[0];
    return r;
  }
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.err = "pipe failed";
    return r;
  }
  auto envs = merged_environment(env);
  auto args = argv;
  args[0] = exe;
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    auto a = c_strings(args);
    auto e = c_strings(envs);
    execve(exe.c_str(), a.data(), e.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* into[2] = {&r.out, &r.err};
  int open_fds = 2;
  const auto deadline = start + timeout;
  bool timed_out = false;
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        into[i]->append(buf, n);
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (timed_out) kill(-pid, SIGKILL), kill(pid, SIGKILL);
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int st = 0;
  waitpid(pid, &st, 0);
  r.code = timed_out ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::unique_ptr<IbSim> IbSim::start(const std::string& net_file, std::string* error, std::chrono::milliseconds timeout) {
  std::unique_ptr<IbSim> sim(new IbSim());
  sim->dir_ = std::make_unique<TempDir>("weft-ibsim");
  sim->sockname_ = unique_sockname();
  sim->ibsim_ = std::make_unique<Process>(Process::Options{
      .argv = {"ibsim", "-s", net_file},
      .env = {{"IBSIM_SOCKNAME", sim->sockname_}},
      .keep_stdin_open = true,
      .log_file = sim->dir_->file("ibsim.log")});
  if (!sim->ibsim_->wait_for_line(std::regex("simulator ready"), timeout)) {
    if (error) *error = "ibsim did not become ready in time: " + sim->ibsim_->output();
    return nullptr;
  }
  return sim;
}

IbSim::~IbSim() {
  stop_sms();
  if (ibsim_) ibsim_->stop(std::chrono::milliseconds(500));
}

std::map<std::string, std::string> IbSim::env_for(const std::string& host) const {
  return {{"LD_PRELOAD", kUmad2simLibrary}, {"SIM_HOST", host}, {"IBSIM_SOCKNAME", sockname_}};
}

size_t IbSim::start_sm(const SmOptions& o) {
  Sm sm;
  sm.dir = dir_->file("sm" + std::to_string(sms_.size()));
  std::filesystem::create_directories(sm.dir);
  // Options file: failover within about a second, dumps kept in the SM's own directory.
  std::ofstream conf(sm.dir + "/opensm.conf");
  // force_log_flush: the harness reads the log while OpenSM runs (SUBNET UP, STANDBY).
  conf << "dump_files_dir " << sm.dir << "\n"
       << "force_log_flush TRUE\n"
       << "sweep_interval " << o.sweep_interval_s << "\n";
  if (o.fast_failover) conf << "sminfo_polling_timeout 300\npolling_retry_number 2\n";
  conf.close();
  auto env = env_for(o.host);
  env["OSM_CACHE_DIR"] = sm.dir;
  env["OSM_TMP_DIR"] = sm.dir;
  sm.process = std::make_unique<Process>(Process::Options{
      .argv = {"opensm", "-F", sm.dir + "/opensm.conf", "-p", std::to_string(o.priority), "-f", sm.dir + "/opensm.log"},
      .env = env,
      .keep_stdin_open = false});
  sms_.push_back(std::move(sm));
  return sms_.size() - 1;
}

std::string IbSim::sm_log(size_t sm) const { return read_file(sms_.at(sm).dir + "/opensm.log"); }

std::string IbSim::sm_output(size_t sm) const { return sms_.at(sm).process->output(); }

bool IbSim::wait_sm_subnet_up(size_t sm, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (sms_.at(sm).process->running() && sm_log(sm).find("SUBNET UP") != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

bool IbSim::wait_subnet_up(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    for (size_t i = 0; i < sms_.size(); ++i) {
      if (sms_[i].process->running() && sm_log(i).find("SUBNET UP") != std::string::npos) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

void IbSim::kill_sm(size_t sm) { sms_.at(sm).process->stop(std::chrono::milliseconds(0), SIGKILL); }

void IbSim::stop_sms() {
  for (auto& sm : sms_) {
    if (sm.process) sm.process->stop(std::chrono::milliseconds(300));
  }
}

void IbSim::console(const std::string& command) { ibsim_->write_stdin(command + "\n"); }

CommandResult IbSim::run_as(const std::string& host, const std::vector<std::string>& argv,
                            std::chrono::milliseconds timeout) const {
  return run_capture(argv, env_for(host), timeout);
}

}  // namespace weft::testing
