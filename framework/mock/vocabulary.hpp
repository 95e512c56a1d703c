// The mock's fixed vocabulary: special and whitespace tokens, the readable words it generates,
// and a stable hash id for every other piece of text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bi::mock {

inline constexpr std::int32_t kBosId = 1;
inline constexpr std::int32_t kEosId = 2;
inline constexpr std::int32_t kSpaceId = 3;
inline constexpr std::int32_t kNewlineId = 4;
inline constexpr std::int32_t kDoubleNewlineId = 5;
inline constexpr std::int32_t kVocabSize = 32000;
inline constexpr std::string_view kBosText = "<s>";
inline constexpr std::string_view kEosText = "</s>";

// Special markers the tokenizer keeps whole, longest first.
inline constexpr std::string_view kSpecialPieces[] = {"<|im_start|>", "<|im_end|>", "</s>", "<s>"};

// The words generation draws from: each is one token (a leading space and at most six letters,
// or a punctuation mark), so tokenizing generated text gives back the generated ids.
std::size_t generated_word_count();
const std::string& generated_word(std::size_t index);
std::int32_t generated_word_id(std::size_t index);

// Table id for known pieces, else a hash into the upper part of the vocabulary.
std::int32_t piece_id(std::string_view piece);

}  // namespace bi::mock
