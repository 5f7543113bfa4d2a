#include "scheduler/core/plugins/arguments.h"

#include <cctype>

namespace weft::scheduler {

Result<double> number_arg(const nlohmann::json& v, const std::string& key) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    try {
      size_t used = 0;
      double d = std::stod(v.get<std::string>(), &used);
      if (used == v.get<std::string>().size()) return d;
    } catch (const std::exception&) {
    }
  }
  return make_error("argument '" + key + "': " + v.dump() + " is not a number");
}

Result<bool> bool_arg(const nlohmann::json& v, const std::string& key) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string() && (v == "true" || v == "false")) return v == "true";
  return make_error("argument '" + key + "': " + v.dump() + " is not a boolean");
}

Result<double> duration_arg(const nlohmann::json& v, const std::string& key) {
  if (v.is_number() && v.get<double>() >= 0) return v.get<double>();
  Error bad = make_error("argument '" + key + "': " + v.dump() + " is not a duration");
  if (!v.is_string() || v.get<std::string>().empty()) return bad;
  const std::string s = v.get<std::string>();
  double total = 0;
  size_t i = 0;
  bool any_unit = false;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    if (i == start) return bad;
    double n = 0;
    try {
      n = std::stod(s.substr(start, i - start));
    } catch (const std::exception&) {
      return bad;
    }
    if (i == s.size()) {
      if (any_unit) return bad;   // "1m30" has no unit on its last part
      return n;                   // plain seconds
    }
    double unit = 0;
    if (s.compare(i, 2, "ms") == 0) unit = 0.001, i += 2;
    else if (s[i] == 's') unit = 1, ++i;
    else if (s[i] == 'm') unit = 60, ++i;
    else if (s[i] == 'h') unit = 3600, ++i;
    else return bad;
    any_unit = true;
    total += n * unit;
  }
  return total;
}

Error unknown_argument(const std::string& key, const std::string& supported) {
  return make_error("argument '" + key + "' is unknown (supported: " + supported + ")");
}

}  // namespace weft::scheduler
