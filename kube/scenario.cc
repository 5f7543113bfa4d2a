#include "kube/scenario.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <regex>
#include <sstream>

#include "kube/client/list_decoder.h"
#include "kube/file_text.h"
#include "kube/objects.h"

namespace weft::kube {
namespace {

using nlohmann::json;

size_t invalid_utf8_at(std::string_view s);

// The text is UTF-8, but an escape in a double-quoted scalar can still make bytes that
// are not (yaml-cpp writes some escapes as single bytes): found where it stands.
const std::string& utf8_scalar(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (invalid_utf8_at(s) != std::string_view::npos)
    throw YAML::ParserException(node.Mark(), "this scalar is not UTF-8 once its escapes are read");
  return s;
}

json scalar_to_json(const YAML::Node& node) {
  const std::string& s = utf8_scalar(node);
  if (node.Tag() == "!") return s;  // quoted: always a string
  if (!node.Tag().empty() && node.Tag() != "?") return s;
  static const std::regex int_re(R"([-+]?[0-9]+)");
  static const std::regex hex_re(R"(0x[0-9a-fA-F]+)");
  static const std::regex float_re(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  try {
    if (std::regex_match(s, int_re)) return std::stoll(s);
    if (std::regex_match(s, hex_re)) return static_cast<int64_t>(std::stoull(s, nullptr, 16));
    if (std::regex_match(s, float_re)) return std::stod(s);
  } catch (const std::out_of_range&) {
    return s;  // too large for a number: keep the text
  }
  return s;
}

json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar_to_json(node);
    case YAML::NodeType::Sequence: {
      json arr = json::array();
      for (const auto& item : node) arr.push_back(to_json(item));
      return arr;
    }
    case YAML::NodeType::Map: {
      json obj = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar() && !kv.first.IsNull())
          throw YAML::ParserException(kv.first.Mark(), "a map key that is not a scalar");
        if (kv.first.IsScalar()) utf8_scalar(kv.first);
        obj[kv.first.as<std::string>()] = to_json(kv.second);
      }
      return obj;
    }
  }
  return nullptr;
}

// Offset of the first byte that is not part of well-formed UTF-8, or npos. YAML text must
// be Unicode; yaml-cpp passes any bytes through, and a string that is not UTF-8 would
// only fail later, when some error message or output serialises it.
size_t invalid_utf8_at(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return i;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    const bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

Status require_utf8(std::string_view text, const std::string& name) {
  const size_t bad = invalid_utf8_at(text);
  if (bad == std::string_view::npos) return {};
  const std::string_view before = text.substr(0, bad);
  const size_t line_start = before.rfind('\n');
  const size_t line = static_cast<size_t>(std::count(before.begin(), before.end(), '\n')) + 1;
  const size_t column = bad - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
  return make_error(name + ": line " + std::to_string(line) + ", column " + std::to_string(column) +
                    ": not UTF-8 (YAML text must be)");
}

bool marker_line(std::string_view line, std::string_view marker) {
  return line.substr(0, 3) == marker && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r' ||
                                                     line[3] == '\n');
}

}  // namespace

std::vector<YamlDocument> split_yaml_documents(std::string_view text) {
  std::vector<YamlDocument> docs;
  size_t start = 0, pos = 0;
  int line = 0, start_line = 0, index = 0;
  bool explicit_start = false, content = false;
  auto close = [&](size_t end) {
    // A "---" always opens a document, even an empty one; text before the first one (or
    // after a "...") is one only when it holds more than comments and blank lines.
    if (explicit_start || content) docs.push_back({text.substr(start, end - start), start_line, ++index});
  };
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    size_t next = eol == std::string_view::npos ? text.size() : eol + 1;
    std::string_view l = text.substr(pos, next - pos);
    if (marker_line(l, "---")) {
      close(pos);
      start = pos, start_line = line, explicit_start = true, content = false;
    } else if (marker_line(l, "...")) {
      close(next);
      start = next, start_line = line + 1, explicit_start = false, content = false;
    } else {
      size_t first = l.find_first_not_of(" \t\r\n");
      if (first != std::string_view::npos && l[first] != '#' && l[first] != '%') content = true;
    }
    pos = next;
    ++line;
  }
  close(text.size());
  return docs;
}

namespace {

Status check_object(const SourcedObject& so) {
  const json& o = so.object;
  std::string where = so.file + ": document " + std::to_string(so.document);
  if (!o.is_object()) return make_error(where + ": not an object");
  for (const char* f : {"apiVersion", "kind"})
    if (!o.contains(f) || !o[f].is_string() || o[f].get<std::string>().empty())
      return make_error(where + ": missing field '" + f + "'");
  if (!o.contains("metadata") || !o["metadata"].is_object() || !o["metadata"].contains("name") ||
      !o["metadata"]["name"].is_string() || o["metadata"]["name"].get<std::string>().empty())
    return make_error(where + " (" + o["kind"].get<std::string>() + "): missing field 'metadata.name'");
  return {};
}

// A large "kind: List" object item by item, each item parsed straight into its own
// tree (not the whole document, then a copy of every item). Nothing when the text is
// not a well-formed List object: the whole-document parser then decides and reports.
std::optional<std::vector<SourcedObject>> from_json_list_stream(const std::string& text, const std::string& name) {
  std::vector<SourcedObject> out;
  int i = 0;
  auto meta = decode_list(text, [&](json&& item) { out.push_back({std::move(item), name, ++i}); });
  if (!meta || !meta->kind.ends_with("List")) return std::nullopt;
  return out;
}

Result<std::vector<SourcedObject>> from_json_text(const std::string& text, const std::string& name) {
  if (auto streamed = from_json_list_stream(text, name)) return std::move(*streamed);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    return make_error(name + ": JSON error at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const json::exception& e) {   // out_of_range: a number too large
    return make_error(name + ": JSON error: " + e.what());
  }
  std::vector<SourcedObject> out;
  const json* items = nullptr;
  if (doc.is_array()) items = &doc;
  else if (doc.is_object() && doc.contains("items") && kind_of(doc).ends_with("List")) items = &doc["items"];
  if (items) {
    int i = 0;
    for (auto& item : *items) out.push_back({std::move(item), name, ++i});
  } else {
    out.push_back({doc, name, 1});
  }
  return out;
}

}  // namespace

std::string SourcedObject::where() const {
  std::string s = file + ": document " + std::to_string(document);
  // Fields of the wrong type read as absent: naming the document must not fail on them.
  if (std::string kind = kind_of(object); !kind.empty()) s += " (" + kind + " " + key_of(object) + ")";
  return s;
}

Result<json> yaml_to_json(const std::string& text, const std::string& name) {
  if (auto utf8 = require_utf8(text, name); !utf8) return utf8.error();
  // Each document alone, never LoadAll: it never returns on a stray ',' (yaml-cpp 0.7).
  // A file that holds one document must not hide a second one after "---": it would be
  // dropped without a word. The first such document is named.
  std::vector<YAML::Node> docs;
  std::optional<YamlDocument> second;
  for (const auto& doc : split_yaml_documents(text)) {
    try {
      YAML::Node d = YAML::Load(std::string(doc.text));
      if (d.IsNull()) continue;
      docs.push_back(std::move(d));
      if (docs.size() == 2) second = doc;
    } catch (const YAML::Exception& e) {
      return make_error(name + ": YAML error at line " + std::to_string(doc.first_line + e.mark.line + 1) +
                        ", column " + std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
  }
  if (second)
    return make_error(name + ": document " + std::to_string(second->index) + " (line " +
                      std::to_string(second->first_line + 1) + "): a second YAML document; this file takes exactly one");
  try {
    return to_json(docs.empty() ? YAML::Node() : docs.front());
  } catch (const YAML::Exception& e) {
    return make_error(name + ": YAML error at line " + std::to_string(e.mark.line + 1) + ", column " +
                      std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
}

Result<std::vector<SourcedObject>> load_objects_text(const std::string& text, const std::string& name) {
  std::vector<SourcedObject> out;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '[')) {
    auto r = from_json_text(text, name);
    if (!r) return r.error();
    out = std::move(*r);
  } else {
    if (auto utf8 = require_utf8(text, name); !utf8) return utf8.error();
    for (const auto& doc : split_yaml_documents(text)) {
      YAML::Node d;
      json obj;
      try {
        d = YAML::Load(std::string(doc.text));
        obj = to_json(d);
      } catch (const YAML::Exception& e) {
        return make_error(name + ": document " + std::to_string(doc.index) + ": YAML error at line " +
                          std::to_string(doc.first_line + e.mark.line + 1) + ", column " +
                          std::to_string(e.mark.column + 1) + ": " + e.msg);
      }
      if (d.IsNull()) continue;  // an empty document between separators
      // A YAML document may itself be a List.
      if (obj.is_object() && obj.contains("items") && kind_of(obj).ends_with("List") &&
          obj["items"].is_array()) {
        for (auto& item : obj["items"]) out.push_back({std::move(item), name, doc.index});
      } else {
        out.push_back({std::move(obj), name, doc.index});
      }
    }
  }
  for (const auto& so : out)
    if (auto st = check_object(so); !st) return st.error();
  return out;
}

Result<std::vector<SourcedObject>> load_objects_file(const std::string& path) {
  auto file = FileText::open(path);
  if (!file) return file.error();
  return load_objects_text(std::string(file->view()), path);
}

}  // namespace weft::kube
