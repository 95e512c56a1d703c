#include "forensics.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace bi::core {

namespace {

template <typename T>
std::optional<std::size_t> first_difference(const std::vector<T>& a, const std::vector<T>& b) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (!(a[i] == b[i])) return i;
    if (a.size() != b.size()) return n;
    return std::nullopt;
}

std::optional<std::size_t> first_char_difference(const std::string& a, const std::string& b) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return i;
    if (a.size() != b.size()) return n;
    return std::nullopt;
}

bool is_continuation(char ch) {
    return (static_cast<unsigned char>(ch) & 0xC0U) == 0x80U;
}

// The largest UTF-8 boundary of `text` at or before `at`.
std::size_t boundary_before(const std::string& text, std::size_t at) {
    at = std::min(at, text.size());
    while (at > 0 && at < text.size() && is_continuation(text[at])) --at;
    return at;
}

// At most `bytes` of `text` from `offset`, ending on a UTF-8 boundary.
std::string slice(const std::string& text, std::size_t offset, std::size_t bytes, bool& cut) {
    if (offset >= text.size()) return {};
    const std::size_t end = offset + bytes;
    if (end >= text.size()) return text.substr(offset);
    cut = true;
    return text.substr(offset, boundary_before(text, end) - offset);
}

template <typename T>
const T* at_position(const std::optional<std::vector<T>>& values, std::size_t i) {
    if (!values || i >= values->size()) return nullptr;
    return &(*values)[i];
}

bool same_token(const TokenAlternative& top, const TrialRecord& trial, std::size_t i) {
    if (top.id && trial.token_ids && i < trial.token_ids->size())
        return *top.id == (*trial.token_ids)[i];
    const std::string* text = at_position(trial.token_texts, i);
    return text && !top.text.empty() && *text == top.text;
}

std::vector<std::string> ngrams(const std::vector<std::string>& words) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i + kContaminationNgram <= words.size(); ++i) {
        std::string gram = words[i];
        for (std::size_t j = 1; j < kContaminationNgram; ++j) gram += " " + words[i + j];
        out.push_back(std::move(gram));
    }
    return out;
}

}  // namespace

std::string_view name(DivergenceBasis basis) {
    switch (basis) {
        case DivergenceBasis::TokenId:
            return "token_id";
        case DivergenceBasis::TokenText:
            return "token_text";
        case DivergenceBasis::Char:
            return "char";
    }
    return "";  // unreachable: the switch names every basis (-Werror=switch)
}

std::optional<DivergenceBasis> parse_divergence_basis(std::string_view text) {
    for (auto basis : {DivergenceBasis::TokenId, DivergenceBasis::TokenText, DivergenceBasis::Char})
        if (name(basis) == text) return basis;
    return std::nullopt;
}

std::string_view name(DivergenceKind kind) {
    switch (kind) {
        case DivergenceKind::NearTie:
            return "near_tie";
        case DivergenceKind::Decisive:
            return "decisive";
        case DivergenceKind::Unknown:
            return "unknown";
    }
    return "";  // unreachable: the switch names every kind (-Werror=switch)
}

std::optional<DivergenceKind> parse_divergence_kind(std::string_view text) {
    for (auto kind : {DivergenceKind::NearTie, DivergenceKind::Decisive, DivergenceKind::Unknown})
        if (name(kind) == text) return kind;
    return std::nullopt;
}

std::optional<FirstDivergence> first_divergence(const TrialRecord& a, const TrialRecord& c) {
    const auto found = [](DivergenceBasis basis, std::size_t index) {
        return FirstDivergence{basis, index, index};
    };
    if (a.token_ids && c.token_ids)
        if (auto i = first_difference(*a.token_ids, *c.token_ids))
            return found(DivergenceBasis::TokenId, *i);
    if (a.token_texts && c.token_texts)
        if (auto i = first_difference(*a.token_texts, *c.token_texts))
            return found(DivergenceBasis::TokenText, *i);
    if (auto i = first_char_difference(a.content, c.content))
        return found(DivergenceBasis::Char, *i);
    return std::nullopt;
}

std::optional<TextExcerpt> content_excerpt(const std::string& a, const std::string& c) {
    const auto at = first_char_difference(a, c);
    if (!at) return std::nullopt;
    TextExcerpt excerpt;
    excerpt.offset = boundary_before(a, *at > kExcerptBefore ? *at - kExcerptBefore : 0);
    // Both sides are equal before *at, so a boundary of one is a boundary of the other.
    excerpt.a = slice(a, excerpt.offset, kExcerptBytes, excerpt.truncated);
    excerpt.c = slice(c, excerpt.offset, kExcerptBytes, excerpt.truncated);
    excerpt.truncated = excerpt.truncated || excerpt.offset > 0;
    return excerpt;
}

DivergenceKind classify_margin(const std::optional<double>& margin) {
    if (!margin) return DivergenceKind::Unknown;
    return *margin < kNearTieMargin ? DivergenceKind::NearTie : DivergenceKind::Decisive;
}

std::optional<IdForensics> divergence_forensics(const TrialRecord& a, const TrialRecord& c) {
    const auto at = first_divergence(a, c);
    if (!at) return std::nullopt;
    IdForensics f;
    f.at = *at;
    if (at->basis != DivergenceBasis::Char) {
        const std::size_t i = at->index;
        if (const double* lp = at_position(a.token_logprobs, i)) f.a_logprob = *lp;
        if (const double* lp = at_position(c.token_logprobs, i)) f.c_logprob = *lp;
        if (const auto* top = at_position(a.top_alternatives, i); top && top->size() >= 2)
            f.a_margin = (*top)[0].logprob - (*top)[1].logprob;
        if (a.token_logprobs && c.token_logprobs) {
            double max_delta = 0.0;
            const std::size_t n = std::min({i, a.token_logprobs->size(), c.token_logprobs->size()});
            for (std::size_t j = 0; j < n; ++j)
                max_delta =
                    std::max(max_delta, std::fabs((*a.token_logprobs)[j] - (*c.token_logprobs)[j]));
            f.max_prefix_logprob_delta = max_delta;
        }
    }
    f.kind = classify_margin(f.a_margin);
    f.excerpt = content_excerpt(a.content, c.content);
    return f;
}

int severity(const IdForensics& f) {
    if (f.contamination) return 3;
    switch (f.kind) {
        case DivergenceKind::Decisive:
            return 2;
        case DivergenceKind::Unknown:
            return 1;
        case DivergenceKind::NearTie:
            return 0;
    }
    return 0;  // unreachable: the switch names every kind (-Werror=switch)
}

std::vector<std::string> text_words(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    for (const char ch : text) {
        const auto u = static_cast<unsigned char>(ch);
        const bool letter = (u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || u >= 0x80;
        if (u >= 'A' && u <= 'Z') {
            word += static_cast<char>(u - 'A' + 'a');
        } else if (letter) {
            word += ch;
        } else if (!word.empty()) {
            words.push_back(std::move(word));
            word.clear();
        }
    }
    if (!word.empty()) words.push_back(std::move(word));
    return words;
}

std::optional<std::string> foreign_ngram(std::string_view completion,
                                         const std::vector<std::string_view>& own,
                                         std::string_view neighbour) {
    const auto candidates = ngrams(text_words(completion));
    if (candidates.empty()) return std::nullopt;
    const auto theirs = ngrams(text_words(neighbour));
    const std::set<std::string> in_neighbour(theirs.begin(), theirs.end());
    std::set<std::string> in_own;
    for (const auto text : own)
        for (auto& gram : ngrams(text_words(text))) in_own.insert(std::move(gram));
    for (const auto& gram : candidates)
        if (in_neighbour.count(gram) && !in_own.count(gram)) return gram;
    return std::nullopt;
}

std::optional<GreedyViolation> first_greedy_violation(const TrialRecord& trial) {
    if (!trial.top_alternatives || !trial.token_logprobs) return std::nullopt;
    const auto& alternatives = *trial.top_alternatives;
    const auto& chosen = *trial.token_logprobs;
    for (std::size_t i = 0; i < alternatives.size() && i < chosen.size(); ++i) {
        if (alternatives[i].empty()) continue;
        const TokenAlternative& top = alternatives[i].front();
        if (chosen[i] >= top.logprob || same_token(top, trial, i)) continue;
        GreedyViolation v;
        v.position = i;
        v.chosen_logprob = chosen[i];
        v.top_logprob = top.logprob;
        return v;
    }
    return std::nullopt;
}

}  // namespace bi::core
