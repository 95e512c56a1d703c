// Failure-mode classification shared by every family; the family decides only what "could not
// be parsed" means for it.
#include <set>
#include <string>
#include <vector>

#include "family_rules.hpp"
#include "text_extract.hpp"

namespace spark {

namespace {

constexpr std::size_t kMinWordsForNgrams = 24;
constexpr std::size_t kNgram = 4;
constexpr std::size_t kMaxPeriod = 32;
constexpr std::size_t kMinRepeatedBytes = 80;

std::vector<std::string_view> words_of(std::string_view text) {
    std::vector<std::string_view> words;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() &&
               std::string_view(" \t\r\n").find(text[i]) != std::string_view::npos)
            ++i;
        const auto start = i;
        while (i < text.size() &&
               std::string_view(" \t\r\n").find(text[i]) == std::string_view::npos)
            ++i;
        if (i > start) words.push_back(text.substr(start, i - start));
    }
    return words;
}

bool json_family(std::string_view family) {
    return family == "E2" || family == "E3";
}

}  // namespace

bool is_runaway_repetition(std::string_view text) {
    const auto words = words_of(text);
    if (words.size() >= kMinWordsForNgrams) {
        std::set<std::string> distinct;
        const std::size_t total = words.size() - kNgram + 1;
        for (std::size_t i = 0; i < total; ++i) {
            std::string gram;
            for (std::size_t j = 0; j < kNgram; ++j) gram += std::string(words[i + j]) + '\x1f';
            distinct.insert(std::move(gram));
        }
        if ((total - distinct.size()) * 2 >= total) return true;
    }
    // Output without spaces ("!!!!..." or "abcabcabc...") escapes the word test.
    if (text.size() < kMinRepeatedBytes) return false;
    for (std::size_t period = 1; period <= kMaxPeriod && period < text.size(); ++period) {
        std::size_t run = 0;
        for (std::size_t i = 0; i + period < text.size(); ++i) {
            run = text[i] == text[i + period] ? run + 1 : 0;
            const std::size_t covered = run + period;
            if (covered >= kMinRepeatedBytes && covered * 2 >= text.size()) return true;
        }
    }
    return false;
}

std::string classify_failure_mode(std::string_view family, std::string_view completion,
                                  const Json& expected) {
    if (trim(completion).empty()) return kModeEmpty;
    if (has_reasoning_tags(completion)) return kModeReasoningLeak;
    if (is_runaway_repetition(completion)) return kModeRunaway;
    const Extraction extraction = extract_answer(family, completion, expected);
    if (json_family(family)) {
        if (!first_json_object(strip_reasoning(completion))) return kModeNoValidJson;
        if (!extraction.found) return kModeParseFail;  // JSON, but not the shape asked for
        return kModeOk;
    }
    return extraction.found ? kModeOk : kModeParseFail;
}

}  // namespace spark
