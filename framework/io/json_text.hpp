// JSON text <-> core::Json, through RapidJSON. The only place JSON text is parsed or written.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/json.hpp"

namespace bi::io {

// Deepest nesting parse_json accepts: far beyond any cert, work-set or server answer, and far
// below what the recursive conversion could hold on a thread's stack.
inline constexpr std::size_t kMaxJsonDepth = 256;

// Parses strict JSON (full-precision doubles), iteratively, refusing nesting deeper than
// kMaxJsonDepth, text that is not UTF-8, escapes that decode to no Unicode character and an
// object that repeats a key (I-JSON: every document read from outside has one meaning). Errors
// are bi::Error(Json) naming `what` and the byte offset: "ws.json: invalid JSON at offset 17:
// Missing a comma ...", "ws.json: invalid UTF-8 at byte offset 40".
core::Json parse_json(std::string_view text, std::string_view what);

// The index of the element of the top-level array that holds byte `offset` of `text`, read
// from its structure alone (the text need not parse); nullopt when `offset` is not inside one.
std::optional<std::size_t> top_level_element_at(std::string_view text, std::size_t offset);

// Keys come out sorted (core::Json keeps objects ordered). Compact by default; pretty uses a
// 2-space indent. Non-finite numbers and strings that are not UTF-8 are refused with
// bi::Error(Json), so what is written is always valid JSON text.
std::string to_json_text(const core::Json& value, bool pretty = false);

}  // namespace bi::io
