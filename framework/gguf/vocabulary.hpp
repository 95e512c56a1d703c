// The synthetic model's SentencePiece-style vocabulary: special, byte, character and word tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bi::gguf {

// llama.cpp's token type codes (tokenizer.ggml.token_type).
enum TokenType : std::int32_t {
    kTokenNormal = 1,
    kTokenUnknown = 2,
    kTokenControl = 3,
    kTokenUserDefined = 4,
    kTokenUnused = 5,
    kTokenByte = 6,
};

// SentencePiece's word-boundary marker U+2581, which stands for a space inside tokens.
inline constexpr const char* kSpaceMarker = "\xe2\x96\x81";

struct Vocabulary {
    std::vector<std::string> tokens;
    std::vector<float> scores;
    std::vector<std::int32_t> types;
    std::uint32_t unk_id = 0;
    std::uint32_t bos_id = 1;
    std::uint32_t eos_id = 2;

    std::size_t size() const { return tokens.size(); }
    // Only normal tokens decode to printable text; the rest must never be generated.
    bool is_printable(std::size_t id) const { return types[id] == kTokenNormal; }
};

// How many words the built-in list holds (the upper bound for `word_count`).
std::size_t available_word_count();

// <unk>, <s>, </s>, <0x00>..<0xFF> (byte), the chat-template markers (control), the space marker,
// printable ASCII, then the first `word_count` words of the list as space-marked pieces together
// with every prefix, so SentencePiece's pairwise merging can reach whole words. Tokens are unique.
Vocabulary build_vocabulary(std::size_t word_count);

}  // namespace bi::gguf
