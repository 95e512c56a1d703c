// Our list of common English words and word pieces, most frequent first, for the synthetic vocab.
#pragma once

#include <string_view>
#include <vector>

namespace bi::gguf {

const std::vector<std::string_view>& common_words();
// Pieces that continue a word (no leading space marker), e.g. "ing".
const std::vector<std::string_view>& common_suffixes();

}  // namespace bi::gguf
