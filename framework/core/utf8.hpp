// UTF-8 well-formedness, as RFC 3629 defines it: no overlong forms, no surrogates, nothing above
// U+10FFFF, no truncated sequence.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace bi::core {

// The byte offset of the first byte that does not begin or continue a well-formed sequence;
// nullopt when all of `text` is well-formed UTF-8.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// `text` with every byte that is not part of a well-formed sequence replaced by U+FFFD, for text
// from outside that is recorded, not judged (a GGUF's metadata, /proc fields).
std::string replace_invalid_utf8(std::string_view text);

}  // namespace bi::core
