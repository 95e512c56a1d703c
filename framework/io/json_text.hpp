// JSON text <-> core::Json, through RapidJSON. The only place JSON text is parsed or written.
#pragma once

#include <string>
#include <string_view>

#include "core/json.hpp"

namespace bi::io {

// Parses strict JSON (full-precision doubles). Errors are bi::Error(Json) naming `what`
// and the byte offset: "ws.json: invalid JSON at offset 17: Missing a comma ...".
core::Json parse_json(std::string_view text, std::string_view what);

// Keys come out sorted (core::Json keeps objects ordered). Compact by default; pretty uses a
// 2-space indent. Non-finite numbers are refused with bi::Error(Json).
std::string to_json_text(const core::Json& value, bool pretty = false);

}  // namespace bi::io
