// libbpf prints through one process-wide callback with no user pointer. While a
// LibbpfLogCapture lives, that output (the verifier's lines included) goes to the log
// and is kept so a failed load can report it. Not for concurrent use from two threads.
#pragma once

#include <string>
#include <vector>

namespace weft::load {

class LibbpfLogCapture {
 public:
  LibbpfLogCapture();
  ~LibbpfLogCapture();
  LibbpfLogCapture(const LibbpfLogCapture&) = delete;
  LibbpfLogCapture& operator=(const LibbpfLogCapture&) = delete;

  const std::vector<std::string>& lines() const { return lines_; }
  // The last `max` warning lines joined with " | ", for a one-line error.
  std::string tail(size_t max = 12) const;
  void add(int level, const std::string& line);

 private:
  std::vector<std::string> lines_;
  void* previous_;  // libbpf_print_fn_t
  LibbpfLogCapture* outer_;
};

}  // namespace weft::load
