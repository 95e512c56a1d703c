// Forensics of one divergent id: where its generation left arm A's, how close A's choice was
// there (a rounding flip at a near-tie, or a decisive change), and whether a co-batched
// neighbour's text turned up in it. Also the greedy check every arm's logprobs must pass.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trial.hpp"

namespace bi::core {

// A's top-1/top-2 logprob margin below which a divergence counts as a near-tie, in nats: the two
// tokens' probabilities are within about 5% of each other, close enough for a reordered
// floating-point sum to swap them; above it A preferred its token clearly. README: Reading a RED.
inline constexpr double kNearTieMargin = 0.05;

// Consecutive words a divergent completion must share with a neighbour to be suspected of
// carrying its text: 4 words rarely recur by chance in 64 generated tokens.
inline constexpr std::size_t kContaminationNgram = 4;

enum class DivergenceBasis { TokenId, TokenText, Char };
std::string_view name(DivergenceBasis basis);
std::optional<DivergenceBasis> parse_divergence_basis(std::string_view text);

enum class DivergenceKind { NearTie, Decisive, Unknown };
std::string_view name(DivergenceKind kind);
std::optional<DivergenceKind> parse_divergence_kind(std::string_view text);

// `index` is the first differing position in the basis' units (a strict prefix differs at the
// shorter length); the common prefix is that many units long.
struct FirstDivergence {
    DivergenceBasis basis = DivergenceBasis::Char;
    std::size_t index = 0;
    std::size_t common_prefix = 0;
};

struct Contamination {
    std::string neighbour;  // the co-batched id whose prompt or A output holds the n-gram
    std::string ngram;      // the shared words, lower case, single spaces
};

// Bytes of each side's content kept around the first content difference: enough context to read
// the change in a report, small enough that a RED of many ids stays a readable cert.
inline constexpr std::size_t kExcerptBefore = 80;
inline constexpr std::size_t kExcerptBytes = 400;

// Both contents from the same byte offset (a UTF-8 boundary before the first difference), each at
// most kExcerptBytes long and cut at a UTF-8 boundary; `truncated` unless both are whole.
struct TextExcerpt {
    std::size_t offset = 0;
    std::string a;
    std::string c;
    bool truncated = false;
};

// Nullopt when the contents are the same (what moved was tokens, reasoning or a tool call).
std::optional<TextExcerpt> content_excerpt(const std::string& a, const std::string& c);

struct IdForensics {
    int pass = 0;  // 1-based C pass; 0 for a comparison that is not a pass
    FirstDivergence at;
    // At the first divergent token (token bases only, when logprobs were returned).
    std::optional<double> a_logprob;
    std::optional<double> c_logprob;
    std::optional<double> a_margin;  // A's top-1 minus top-2 logprob there
    DivergenceKind kind = DivergenceKind::Unknown;
    std::optional<double> max_prefix_logprob_delta;  // max |A - C| over the common prefix
    std::optional<Contamination> contamination;
    std::optional<TextExcerpt> excerpt;  // the texts around the change, for a person to read
};

// Token ids when both trials have them, else the logprob entries' token texts, else the bytes of
// the content; a basis that finds no difference hands over to the next. Nullopt: all agree.
std::optional<FirstDivergence> first_divergence(const TrialRecord& a, const TrialRecord& c);

DivergenceKind classify_margin(const std::optional<double>& margin);

// The first divergence and the logprob evidence there; nullopt when nothing generated differs.
std::optional<IdForensics> divergence_forensics(const TrialRecord& a, const TrialRecord& c);

// How much an entry should be shown first: contamination, then decisive, unknown, near-tie.
int severity(const IdForensics& f);

// Lower-case words (runs of ASCII letters and digits, or of non-ASCII bytes) of a text.
std::vector<std::string> text_words(std::string_view text);

// The first word n-gram (n = kContaminationNgram) of `completion` that occurs in `neighbour` but
// in none of `own`; nullopt when there is none.
std::optional<std::string> foreign_ngram(std::string_view completion,
                                         const std::vector<std::string_view>& own,
                                         std::string_view neighbour);

// A position at which a trial's chosen token is not the most likely one the server listed.
struct GreedyViolation {
    std::string arm;  // "A", "A'", "B" or "C<t>"
    std::string test_id;
    std::size_t position = 0;
    double chosen_logprob = 0.0;
    double top_logprob = 0.0;
};

// The first such position of a trial (arm and id left empty); nullopt when the trial listed no
// alternatives or always chose the top-1. A tie with the top-1 is greedy.
std::optional<GreedyViolation> first_greedy_violation(const TrialRecord& trial);

}  // namespace bi::core
