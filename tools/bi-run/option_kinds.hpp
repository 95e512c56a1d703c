// What each bi-run option's value is, declared once by its name: a parse error says what was
// expected and the completion scripts choose what to offer from it, without probing cxxopts.
#pragma once

#include <string_view>

namespace bi::cli {

enum class ValueKind { Switch, Integer, Count, Number, Text, File, Directory, Word };

// The kind of `option` (its long name: "passes") in `command` ("bi-run run-live");
// bi::Error(Internal) for an option the table lacks.
ValueKind value_kind(std::string_view command, std::string_view option);

// What a value of `kind` must be, for "--passes: 'abc' is not an integer".
const char* expected_value(ValueKind kind);

}  // namespace bi::cli
