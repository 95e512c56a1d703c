// Family-independent ways of finding an answer in free text: quoted spans, code-like tokens,
// numbers, bullets, the first balanced JSON object and code blocks. Pure functions of the text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json.hpp"

namespace spark {

std::string_view trim(std::string_view text);
std::string lower_ascii(std::string_view text);

// Reasoning blocks (<think>...</think>, <reasoning>...</reasoning>, also unclosed) removed.
std::string strip_reasoning(std::string_view text);
bool has_reasoning_tags(std::string_view text);

// The content of the first "...", “...” or `...` span that is non-empty and at most 80 bytes.
std::optional<std::string> first_quoted_span(std::string_view text);

// The first token like "KT-4821-QZ": letter/digit groups joined by hyphens, with a digit.
std::optional<std::string> first_code_token(std::string_view text);

// The last number not glued to a letter or underscore (so "v2" and "BUG-5521" do not count):
// an integer, or a double when it has a fraction. "1,234" reads as 1234.
std::optional<Json> last_number(std::string_view text);

// The text of every bullet line ("- ", "* ", "+ ", "• ", "1. ", "2) "), trimmed, in order.
std::vector<std::string> bullets(std::string_view text);

// The first '{' ... '}' span, balanced outside strings, that parses as a JSON object; spans that
// do not parse are skipped. `saw_brace` tells whether any '{' was there at all.
std::optional<Json> first_json_object(std::string_view text, bool* saw_brace = nullptr);

// The first fenced code block holding "def " (else the first fenced block), or bare code from
// the first line starting with "def " through the lines indented under it.
std::optional<std::string> code_block(std::string_view text);

// Within `code`, the definition of `name` and the lines indented under it; nullopt if absent.
std::optional<std::string> function_named(std::string_view code, std::string_view name);

// True when `word` occurs in `text` with no letter, digit or underscore touching either end;
// compared case-insensitively.
bool contains_word(std::string_view text, std::string_view word);
// The offset of the first such occurrence, or npos.
std::size_t find_word(std::string_view text, std::string_view word);

bool is_identifier(std::string_view text);

// Trimmed, with wrapping quotes/backticks/asterisks/underscores and trailing punctuation removed.
std::string strip_wrapping(std::string_view text);

// For exact comparisons: strip_wrapping, inner whitespace runs collapsed to one space, ASCII
// lower-cased.
std::string normalise_exact(std::string_view text);

}  // namespace spark
