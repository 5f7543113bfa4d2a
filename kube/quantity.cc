#include "kube/quantity.h"

#include <cctype>
#include <limits>

namespace weft::kube {
namespace {

using i128 = __int128;

constexpr i128 kMax = static_cast<i128>(std::numeric_limits<int64_t>::max());

i128 pow10(int n) {
  i128 r = 1;
  while (n-- > 0) r *= 10;
  return r;
}

Error bad(std::string_view text, const std::string& why) {
  return make_error("invalid quantity '" + std::string(text) + "': " + why);
}

struct Suffix {
  int exp10 = 0;
  int exp2 = 0;
};

Result<Suffix> parse_suffix(std::string_view text, std::string_view s) {
  if (s.empty()) return Suffix{};
  static const std::pair<std::string_view, Suffix> table[] = {
      {"Ki", {0, 10}}, {"Mi", {0, 20}}, {"Gi", {0, 30}}, {"Ti", {0, 40}}, {"Pi", {0, 50}}, {"Ei", {0, 60}},
      {"n", {-9, 0}},  {"u", {-6, 0}},  {"m", {-3, 0}},  {"k", {3, 0}},   {"M", {6, 0}},   {"G", {9, 0}},
      {"T", {12, 0}},  {"P", {15, 0}},  {"E", {18, 0}},
  };
  for (const auto& [name, suf] : table)
    if (s == name) return suf;
  if (s[0] == 'e' || s[0] == 'E') {
    std::string_view e = s.substr(1);
    bool neg = false;
    if (!e.empty() && (e[0] == '+' || e[0] == '-')) neg = e[0] == '-', e.remove_prefix(1);
    if (e.empty() || e.size() > 3) return bad(text, "bad exponent");
    int v = 0;
    for (char c : e) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return bad(text, "bad exponent");
      v = v * 10 + (c - '0');
    }
    return Suffix{neg ? -v : v, 0};
  }
  return bad(text, "unknown suffix '" + std::string(s) + "'");
}

}  // namespace

Result<int64_t> parse_quantity_milli(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.empty()) return bad(text, "empty");
  bool negative = false;
  if (s[0] == '+' || s[0] == '-') negative = s[0] == '-', s.remove_prefix(1);

  i128 mantissa = 0;
  int decimals = 0, digits = 0;
  bool seen_point = false;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (seen_point) return bad(text, "two decimal points");
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    if (mantissa == 0 && c == '0' && !seen_point) {
      ++digits;
      continue;
    }
    if (digits > 36) return bad(text, "too many digits");
    mantissa = mantissa * 10 + (c - '0');
    ++digits;
    if (seen_point) ++decimals;
  }
  if (digits == 0) return bad(text, "no digits");
  auto suffix = parse_suffix(text, s.substr(i));
  if (!suffix) return suffix.error();

  // milli = mantissa * 2^exp2 * 10^(exp10 + 3 - decimals), rounded up (away from zero).
  int exp10 = suffix->exp10 + 3 - decimals;
  i128 value = mantissa;
  for (int b = 0; b < suffix->exp2; ++b) {
    value *= 2;
    if (value > kMax) return bad(text, "too large");
  }
  if (exp10 >= 0) {
    if (exp10 > 30) {
      if (value != 0) return bad(text, "too large");
    } else {
      const i128 scale = pow10(exp10);
      if (value > kMax / scale) return bad(text, "too large");   // 36 digits times 10^30 would pass i128
      value *= scale;
    }
  } else {
    if (-exp10 > 36) {
      value = value != 0 ? 1 : 0;
    } else {
      i128 div = pow10(-exp10);
      value = (value + div - 1) / div;
    }
  }
  if (value > kMax) return bad(text, "too large");
  int64_t out = static_cast<int64_t>(value);
  return negative ? -out : out;
}

Result<int64_t> parse_quantity_milli(const std::string& text) { return parse_quantity_milli(std::string_view(text)); }
Result<int64_t> parse_quantity_milli(const char* text) { return parse_quantity_milli(std::string_view(text)); }

Result<int64_t> parse_quantity_milli(const nlohmann::json& value) {
  if (value.is_string()) return parse_quantity_milli(value.get_ref<const std::string&>());
  if (value.is_number_integer()) return parse_quantity_milli(std::to_string(value.get<int64_t>()));
  if (value.is_number()) return parse_quantity_milli(value.dump());
  return make_error("invalid quantity " + value.dump() + ": not a string or number");
}

Result<ResourceList> parse_resource_list(const nlohmann::json& obj) {
  ResourceList out;
  if (obj.is_null()) return out;
  if (!obj.is_object()) return make_error("resource list is not an object: " + obj.dump());
  for (const auto& [name, v] : obj.items()) {
    auto q = parse_quantity_milli(v);
    if (!q) return wrap(q.error(), "resource '" + name + "'");
    out[name] = *q;
  }
  return out;
}

void add_to(ResourceList& into, const ResourceList& other) {
  for (const auto& [k, v] : other) into[k] += v;
}

void subtract_from(ResourceList& from, const ResourceList& other) {
  for (const auto& [k, v] : other) from[k] -= v;
}

ResourceList max_of(const ResourceList& a, const ResourceList& b) {
  ResourceList out = a;
  for (const auto& [k, v] : b) {
    auto it = out.find(k);
    if (it == out.end() || it->second < v) out[k] = v;
  }
  return out;
}

std::string first_shortage(const ResourceList& request, const ResourceList& available) {
  for (const auto& [k, v] : request) {
    if (v <= 0) continue;
    auto it = available.find(k);
    if (it == available.end() || it->second < v) return k;
  }
  return "";
}

bool fits(const ResourceList& request, const ResourceList& available) {
  return first_shortage(request, available).empty();
}

double to_base_units(int64_t milli) { return static_cast<double>(milli) / 1000.0; }

nlohmann::json to_json(const ResourceList& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : list) {
    if (v % 1000 == 0)
      out[k] = v / 1000;
    else
      out[k] = to_base_units(v);
  }
  return out;
}

std::string format_quantity(int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

}  // namespace weft::kube
