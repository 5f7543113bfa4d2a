#include "collectors/load/ebpf/kallsyms.h"

#include <cstdlib>
#include <sstream>

namespace weft::load {

Result<uint64_t> find_kernel_function(const std::string& kallsyms, const std::vector<std::string>& names,
                                      const std::string& where) {
  std::vector<uint64_t> found(names.size(), 0);
  std::vector<bool> seen(names.size(), false);
  std::istringstream in(kallsyms);
  std::string line;
  while (std::getline(in, line)) {
    // "ffffffff814332e0 t tick_nohz_handler" (module symbols add " [module]")
    auto sp1 = line.find(' ');
    if (sp1 == std::string::npos || sp1 + 3 > line.size() || line[sp1 + 2] != ' ') continue;
    char type = line[sp1 + 1];
    if (type != 't' && type != 'T') continue;
    std::string name = line.substr(sp1 + 3);
    for (size_t i = 0; i < names.size(); i++) {
      if (!seen[i] && name == names[i]) {
        seen[i] = true;
        found[i] = std::strtoull(line.substr(0, sp1).c_str(), nullptr, 16);
      }
    }
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : " or ") + n;
  for (size_t i = 0; i < names.size(); i++) {
    if (seen[i] && found[i]) return found[i];
  }
  for (size_t i = 0; i < names.size(); i++) {
    if (seen[i]) {
      return make_error(where + ": " + list + " listed with address 0 (hidden: needs CAP_SYSLOG, or kptr_restrict 0 "
                        "with perf_event_paranoid <= 1)");
    }
  }
  return make_error(where + ": no text symbol " + list);
}

}  // namespace weft::load
