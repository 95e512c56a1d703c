// A cell's model name: which names a cert can carry, and how a name is written in the file names
// of its cert, baseline and server log (docs/cert.md "The file").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace bi::core {

// The longest model name a cert takes, in bytes.
inline constexpr std::size_t kMaxModelName = 200;

// Why `model` cannot name a cell, or "" when it can: a plain name is letters, digits and
// . _ - + / :, does not start with . or /, has no "..", and is at most kMaxModelName bytes.
// Store names ("llama3.1:8b", "library/mistral:latest") and directory names
// ("Qwen2.5-7B-Instruct") are plain.
std::string model_name_problem(std::string_view model);

// The model name as the first part of a file name: letters, digits and . _ - + are kept, every
// other byte is written ~XX (two upper-case hex digits), so a name of letters, digits, '_' and
// '-' is its own file name and two names never share one ("llama3.1:8b" -> "llama3.1~3A8b",
// "org/m" -> "org~2Fm").
std::string model_file_stem(std::string_view model);

}  // namespace bi::core
