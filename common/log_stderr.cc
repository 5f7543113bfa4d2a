// The stderr backend of common/log.h, for weft-agent: a one-shot probe prints its
// report on stdout, so warnings and errors go to stderr and nothing else is printed.
#include <unistd.h>

#include <string>

#include "common/log.h"

namespace weft::log {

bool enabled(Level level) { return level >= Level::warn; }

void write(Level level, std::string_view message) {
  std::string line = level == Level::error ? "weft-agent: error: " : "weft-agent: warning: ";
  line.append(message);
  line.push_back('\n');
  // One write per line, so lines of concurrent writers do not interleave.
  for (size_t done = 0; done < line.size();) {
    ssize_t n = ::write(STDERR_FILENO, line.data() + done, line.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace weft::log
