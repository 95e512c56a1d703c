// Python-ish code compared by normalised tokens: layout, comments, docstrings and quote style do
// not matter; "x += y" equals "x = x + y"; listed equivalent forms are rewritten to one form.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spark {

using CodeTokens = std::vector<std::string>;

// Tokens of `code`: names, numbers, strings (as "content"), operators, and NEWLINE / INDENT /
// DEDENT for the line structure. Comments and blank lines vanish.
CodeTokens tokenize_code(std::string_view code);

// The tokens with bare-string statements (docstrings) dropped, simple augmented assignments
// spelled out, then every `alternative` of `equivalents` rewritten to its `canonical` form.
CodeTokens normalise_code(std::string_view code,
                          const std::vector<std::pair<std::string, std::string>>& equivalents);

// A snippet's tokens as they appear inside a larger function: no trailing NEWLINE/DEDENT, no
// leading INDENT, equivalents applied.
CodeTokens normalise_snippet(std::string_view snippet,
                             const std::vector<std::pair<std::string, std::string>>& equivalents);

bool contains_tokens(const CodeTokens& haystack, const CodeTokens& needle);

}  // namespace spark
