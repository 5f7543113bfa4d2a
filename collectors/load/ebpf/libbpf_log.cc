#include "collectors/load/ebpf/libbpf_log.h"

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>

#include "common/log.h"

namespace weft::load {

namespace {

// libbpf's callback carries no context pointer, so the active capture is found here.
thread_local LibbpfLogCapture* active_capture = nullptr;

int forward(enum libbpf_print_level level, const char* format, va_list args) {
  // Verifier logs arrive as one message of many lines: size the buffer to fit.
  va_list copy;
  va_copy(copy, args);
  int n = vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string text(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) vsnprintf(text.data(), text.size() + 1, format, args);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  if (active_capture) active_capture->add(level, text);
  if (level == LIBBPF_WARN) {
    log::warn("libbpf: {}", text);
  } else {
    log::debug("libbpf: {}", text);
  }
  return 0;
}

}  // namespace

LibbpfLogCapture::LibbpfLogCapture() : outer_(active_capture) {
  active_capture = this;
  previous_ = reinterpret_cast<void*>(libbpf_set_print(forward));
}

LibbpfLogCapture::~LibbpfLogCapture() {
  libbpf_set_print(reinterpret_cast<libbpf_print_fn_t>(previous_));
  active_capture = outer_;
}

void LibbpfLogCapture::add(int level, const std::string& text) {
  if (level != LIBBPF_WARN) return;
  // The verifier log arrives as one multi-line message; keep it line by line.
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty()) lines_.push_back(line);
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

std::string LibbpfLogCapture::tail(size_t max) const {
  std::string out;
  size_t from = lines_.size() > max ? lines_.size() - max : 0;
  for (size_t i = from; i < lines_.size(); i++) {
    if (!out.empty()) out += " | ";
    out += lines_[i];
  }
  return out;
}

}  // namespace weft::load
