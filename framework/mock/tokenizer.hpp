// A deterministic tokenizer for the mock: words (with their leading space) in chunks of at most
// six letters, digits in groups of three, punctuation and newlines one each, specials whole.
// Roughly four characters a token, so fill ratios sized through /tokenize look like real ones.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bi::mock {

struct Piece {
    std::int32_t id = 0;
    std::string text;
};

std::vector<Piece> tokenize(std::string_view text);

// The prompt as the mock evaluates it: BOS, then the pieces of `text`.
std::vector<Piece> tokenize_prompt(std::string_view text);

std::vector<std::int32_t> ids_of(const std::vector<Piece>& pieces);

}  // namespace bi::mock
