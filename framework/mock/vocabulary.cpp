// The fixed tables behind vocabulary.hpp, built once on first use.
#include "vocabulary.hpp"

#include <unordered_map>
#include <vector>

namespace bi::mock {

namespace {

constexpr std::int32_t kPunctuationBaseId = 10;  // + the ASCII code, below kWordBaseId
constexpr std::int32_t kWordBaseId = 200;
constexpr std::int32_t kHashedBaseId = 1000;

// Six letters at most so each word stays a single token under tokenize().
constexpr const char* kWords[] = {
    "the",    "of",     "and",    "to",     "in",     "is",     "was",    "that",   "for",
    "it",     "with",   "as",     "on",     "be",     "at",     "by",     "this",   "had",
    "not",    "are",    "but",    "from",   "or",     "have",   "an",     "they",   "which",
    "one",    "you",    "were",   "all",    "we",     "her",    "she",    "there",  "would",
    "their",  "will",   "when",   "who",    "him",    "been",   "has",    "more",   "if",
    "no",     "out",    "so",     "said",   "what",   "up",     "its",    "about",  "into",
    "than",   "them",   "can",    "only",   "other",  "new",    "some",   "could",  "time",
    "these",  "two",    "may",    "then",   "do",     "first",  "any",    "my",     "now",
    "such",   "like",   "our",    "over",   "man",    "me",     "even",   "most",   "made",
    "after",  "also",   "did",    "many",   "before", "must",   "where",  "much",   "your",
    "way",    "well",   "down",   "should", "long",   "very",   "still",  "own",    "just",
    "see",    "same",   "last",   "being",  "house",  "river",  "stone",  "light",  "garden",
    "window", "silver", "number", "answer", "water",  "bridge", "little", "paper",  "orange",
    "yellow", "green",  "purple", "forest", "signal", "marble", "copper", "winter", "summer",
};

struct Tables {
    std::vector<std::string> words;
    std::unordered_map<std::string, std::int32_t> ids;

    Tables() {
        ids.emplace(std::string(kBosText), kBosId);
        ids.emplace(std::string(kEosText), kEosId);
        ids.emplace(" ", kSpaceId);
        ids.emplace("\n", kNewlineId);
        ids.emplace("\n\n", kDoubleNewlineId);
        ids.emplace("<|im_start|>", 6);
        ids.emplace("<|im_end|>", 7);
        for (int c = 33; c < 127; ++c) {
            const auto ch = static_cast<char>(c);
            const bool alnum =
                (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
            if (!alnum) ids.emplace(std::string(1, ch), kPunctuationBaseId + c);
        }
        std::int32_t next = kWordBaseId;
        for (const char* word : kWords) {
            words.push_back(std::string(" ") + word);
            ids.emplace(words.back(), next++);
        }
        // Sentence punctuation is generated too, with the ids the tokenizer gives it.
        words.emplace_back(".");
        words.emplace_back(",");
    }
};

const Tables& tables() {
    static const Tables instance;
    return instance;
}

std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t hash = 1469598103934665603ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ULL;
    }
    return hash;
}

}  // namespace

std::size_t generated_word_count() {
    return tables().words.size();
}

const std::string& generated_word(std::size_t index) {
    return tables().words.at(index);
}

std::int32_t generated_word_id(std::size_t index) {
    return piece_id(generated_word(index));
}

std::int32_t piece_id(std::string_view piece) {
    const auto& ids = tables().ids;
    const auto found = ids.find(std::string(piece));
    if (found != ids.end()) return found->second;
    constexpr auto kHashedRange = static_cast<std::uint64_t>(kVocabSize - kHashedBaseId);
    return kHashedBaseId + static_cast<std::int32_t>(fnv1a(piece) % kHashedRange);
}

}  // namespace bi::mock
