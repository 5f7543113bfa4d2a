#include "scheduler/core/plugins/arguments.h"

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

Error unknown_argument(const std::string& key, const std::string& supported) {
  return make_error("argument '" + key + "' is unknown (supported: " + supported + ")");
}

}  // namespace weft::scheduler
