// Splits text into pieces by byte class; ids come from the vocabulary.
#include "tokenizer.hpp"

#include "vocabulary.hpp"

namespace bi::mock {

namespace {

constexpr std::size_t kLetterChunk = 6;
constexpr std::size_t kDigitChunk = 3;

bool is_letter(char c) {
    const auto u = static_cast<unsigned char>(c);
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || u >= 0x80;
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_continuation(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}
bool is_punct(char c) {
    return c > ' ' && c < 127 && !is_letter(c) && !is_digit(c);
}

std::size_t special_at(std::string_view text, std::size_t at) {
    for (const auto special : kSpecialPieces)
        if (text.compare(at, special.size(), special) == 0) return special.size();
    return 0;
}

// End of a letter chunk starting at `at`; a multi-byte character is never cut.
std::size_t letter_chunk_end(std::string_view text, std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && is_letter(text[end]) &&
           (end - at < kLetterChunk || is_continuation(text[end])))
        ++end;
    return end;
}

std::size_t digit_chunk_end(std::string_view text, std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && is_digit(text[end]) && end - at < kDigitChunk) ++end;
    return end;
}

// Length of the piece that starts at `at`.
std::size_t piece_length(std::string_view text, std::size_t at) {
    if (const auto special = special_at(text, at)) return special;
    const char c = text[at];
    const bool has_next = at + 1 < text.size();
    if (c == '\n') return has_next && text[at + 1] == '\n' ? 2 : 1;
    if (c == ' ' && has_next) {
        const char next = text[at + 1];
        if (is_letter(next)) return letter_chunk_end(text, at + 1) - at;
        if (is_digit(next)) return digit_chunk_end(text, at + 1) - at;
        if (is_punct(next) && special_at(text, at + 1) == 0) return 2;
        return 1;
    }
    if (is_letter(c)) return letter_chunk_end(text, at) - at;
    if (is_digit(c)) return digit_chunk_end(text, at) - at;
    return 1;
}

}  // namespace

std::vector<Piece> tokenize(std::string_view text) {
    std::vector<Piece> pieces;
    pieces.reserve(text.size() / 4 + 1);
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t length = piece_length(text, at);
        const auto piece = text.substr(at, length);
        pieces.push_back(Piece{piece_id(piece), std::string(piece)});
        at += length;
    }
    return pieces;
}

std::vector<Piece> tokenize_prompt(std::string_view text) {
    std::vector<Piece> pieces{Piece{kBosId, std::string(kBosText)}};
    auto rest = tokenize(text);
    pieces.insert(pieces.end(), std::make_move_iterator(rest.begin()),
                  std::make_move_iterator(rest.end()));
    return pieces;
}

std::vector<std::int32_t> ids_of(const std::vector<Piece>& pieces) {
    std::vector<std::int32_t> ids;
    ids.reserve(pieces.size());
    for (const auto& piece : pieces) ids.push_back(piece.id);
    return ids;
}

}  // namespace bi::mock
