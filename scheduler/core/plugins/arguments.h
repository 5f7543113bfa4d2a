// Reading plugin arguments as Volcano writes them (numbers may be strings in YAML).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::scheduler {

Result<double> number_arg(const nlohmann::json& v, const std::string& key);
Result<bool> bool_arg(const nlohmann::json& v, const std::string& key);
Error unknown_argument(const std::string& key, const std::string& supported);

}  // namespace weft::scheduler
