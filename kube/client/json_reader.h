// Reads the API's JSON into nlohmann::json several times faster than nlohmann's own
// parser (which reads a byte at a time through an input adapter): the same tree
// nlohmann::json::parse gives (same number kinds, the last of duplicate keys wins, a
// UTF-8 byte-order mark skipped, a NUL byte ending the input) and refusing exactly what it
// refuses. With a projection (projection.h) the fields it drops are checked but never built.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.h"

namespace weft::kube {

// The whole text as one JSON value; `keep` null keeps everything. Errors name the byte
// where the text stops being JSON.
Result<nlohmann::json> read_json(std::string_view text, const nlohmann::json& keep = nullptr);

// One value starting at `pos` (whitespace before it skipped); on success `pos` is just past
// it. For a reader that walks an outer document itself (a List's items).
Result<nlohmann::json> read_json_value(std::string_view text, size_t& pos, const nlohmann::json& keep = nullptr);

// The value at `pos` checked as JSON and not built; on success `pos` is just past it.
Status skip_json_value(std::string_view text, size_t& pos);

// The string whose opening quote is at `pos`, unescaped into `out` (replacing what it
// held); on success `pos` is just past its closing quote.
Status read_json_string(std::string_view text, size_t& pos, std::string& out);
// The same without a copy where none is needed: `out` views the text when the string has
// no escapes (nearly every key), else `unescaped`, which holds it then.
Status read_json_string(std::string_view text, size_t& pos, std::string_view& out, std::string& unescaped);

}  // namespace weft::kube
