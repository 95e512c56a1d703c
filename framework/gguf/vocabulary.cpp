// Builds the vocabulary in a fixed order so token ids, and hence the model bytes, never vary.
#include "vocabulary.hpp"

#include <cstdio>
#include <set>
#include <string_view>
#include <utility>

#include "core/error.hpp"
#include "gguf/word_list.hpp"

namespace bi::gguf {

namespace {

class VocabularyBuilder {
public:
    // Returns false (and adds nothing) for a token already present: ids must map 1:1 to text.
    bool add(const std::string& text, std::int32_t type, float score) {
        if (!seen_.insert(text).second) return false;
        vocab_.tokens.push_back(text);
        vocab_.types.push_back(type);
        vocab_.scores.push_back(score);
        return true;
    }
    // Normal pieces score lower the later they come, like SentencePiece's log-probabilities of
    // a frequency-ordered list: common words win merges.
    void add_piece(const std::string& text) { add(text, kTokenNormal, -next_rank_++); }

    // Every prefix of `marker + word` longer than one code point, shortest first.
    void add_with_prefixes(std::string_view marker, std::string_view word) {
        for (std::size_t length = 1; length <= word.size(); ++length) {
            if (marker.empty() && length == 1) continue;  // single characters already exist
            add_piece(std::string(marker) + std::string(word.substr(0, length)));
        }
    }

    Vocabulary take() { return std::move(vocab_); }

private:
    Vocabulary vocab_;
    std::set<std::string> seen_;
    float next_rank_ = 1.0f;
};

}  // namespace

std::size_t available_word_count() {
    return common_words().size();
}

Vocabulary build_vocabulary(std::size_t word_count) {
    if (word_count > available_word_count())
        throw Error(ErrorCategory::Usage, "at most " + std::to_string(available_word_count()) +
                                              " vocabulary words are available");
    VocabularyBuilder builder;
    builder.add("<unk>", kTokenUnknown, 0.0f);
    builder.add("<s>", kTokenControl, 0.0f);
    builder.add("</s>", kTokenControl, 0.0f);
    for (int byte = 0; byte < 256; ++byte) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", byte);
        builder.add(name, kTokenByte, 0.0f);
    }
    builder.add("<|im_start|>", kTokenControl, 0.0f);
    builder.add("<|im_end|>", kTokenControl, 0.0f);

    builder.add_piece(kSpaceMarker);
    for (char c = '!'; c <= '~'; ++c) builder.add_piece(std::string(1, c));
    const auto& words = common_words();
    for (std::size_t i = 0; i < word_count; ++i) builder.add_with_prefixes(kSpaceMarker, words[i]);
    for (const auto suffix : common_suffixes()) builder.add_with_prefixes("", suffix);
    return builder.take();
}

}  // namespace bi::gguf
