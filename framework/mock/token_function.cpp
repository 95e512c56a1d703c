// Hash-driven token choice and the per-mode perturbations applied to co-batched steps.
#include "token_function.hpp"

#include <algorithm>

#include "core/splitmix64.hpp"
#include "vocabulary.hpp"

namespace bi::mock {

namespace {

constexpr std::uint64_t kScoreSalt = 0x5c0e5c0e5c0e5c0eULL;
constexpr std::uint64_t kShiftSalt = 0x10a9b10a9b10a9bULL;
constexpr std::uint64_t kGreedySalt = 0x96eed796eed796eeULL;
constexpr std::uint64_t kCacheSalt = 0xcac4ec4a9ec4ec4aULL;

// The first SplitMix64 output from state x: a well-mixed hash of x.
std::uint64_t mix(std::uint64_t x) {
    return core::SplitMix64(x).next();
}

std::uint64_t step_hash(std::uint64_t key, int position) {
    return mix(key ^ mix(static_cast<std::uint64_t>(position) + 1));
}

// In (-2.05, -0.05]: plausible greedy logprobs, exactly reproducible.
double chosen_logprob(std::uint64_t hash) {
    return -(0.05 + static_cast<double>((hash >> 16) % 2000) / 1000.0);
}

Candidate word_candidate(std::size_t index, double logprob) {
    return Candidate{generated_word_id(index), generated_word(index), logprob};
}

// The chosen token first, then n_top - 1 distinct words with strictly smaller logprobs.
GeneratedToken with_alternatives(Candidate chosen, std::uint64_t hash, int n_top) {
    GeneratedToken token{std::move(chosen), {}};
    const std::size_t words = generated_word_count();
    const auto wanted = std::min<std::size_t>(static_cast<std::size_t>(std::max(n_top, 0)), words);
    if (wanted == 0) return token;
    token.top.push_back(token.chosen);
    std::vector<std::int32_t> used{token.chosen.id};
    for (std::size_t j = 1; token.top.size() < wanted; ++j) {
        std::size_t index = mix(hash + j) % words;
        while (std::find(used.begin(), used.end(), generated_word_id(index)) != used.end())
            index = (index + 1) % words;
        const double gap = 0.1 * static_cast<double>(j) +
                           static_cast<double>((mix(hash ^ j) >> 20) % 100) / 1000.0;
        used.push_back(generated_word_id(index));
        token.top.push_back(word_candidate(index, token.chosen.logprob - gap));
    }
    return token;
}

// Another word than the base token's, the same at every asking; `salt` tells one cause of change
// from another (so that a cached answer of a build variant is not the variant's answer again).
GeneratedToken other_word(std::uint64_t key, int position, int n_top,
                          std::uint64_t salt = kScoreSalt) {
    const auto hash = step_hash(key, position);
    const std::size_t words = generated_word_count();
    const std::size_t base = hash % words;
    const std::size_t changed = (base + 1 + mix(hash ^ salt) % (words - 1)) % words;
    return with_alternatives(word_candidate(changed, chosen_logprob(hash)), hash, n_top);
}

GeneratedToken shifted(GeneratedToken token, std::uint64_t key, int position) {
    const double shift =
        -static_cast<double>(1 + mix(step_hash(key, position) ^ kShiftSalt) % 9) * 1e-4;
    token.chosen.logprob += shift;
    for (auto& candidate : token.top) candidate.logprob += shift;
    return token;
}

GeneratedToken final_whitespace(std::uint64_t key, const StepContext& step, int n_top) {
    const auto hash = step_hash(key, step.position);
    Candidate chosen = step.ever_co_batched ? Candidate{kDoubleNewlineId, "\n\n", 0.0}
                                            : Candidate{kNewlineId, "\n", 0.0};
    chosen.logprob = chosen_logprob(hash);
    return with_alternatives(std::move(chosen), hash, n_top);
}

GeneratedToken leaked_word(std::uint64_t key, const StepContext& step, int n_top) {
    const auto& words = *step.neighbour_words;
    const auto hash = step_hash(key, step.position);
    std::string piece = " " + words[static_cast<std::size_t>(step.leak_index) % words.size()];
    const auto id = piece_id(piece);
    return with_alternatives(Candidate{id, std::move(piece), chosen_logprob(hash)}, hash, n_top);
}

// About one position in three lists another word above the chosen one, as a sampling server would.
GeneratedToken not_greedy(std::uint64_t key, int position, int n_top) {
    GeneratedToken token = base_token(key, position, n_top);
    if (token.top.empty() || mix(step_hash(key, position) ^ kGreedySalt) % 3 != 0) return token;
    Candidate better = token.top.size() >= 2 ? token.top[1] : token.chosen;
    if (better.id == token.chosen.id) better = Candidate{kNewlineId, "\n", 0.0};
    better.logprob = std::min(0.0, token.chosen.logprob + 0.25);
    token.top.insert(token.top.begin(), better);
    token.top.resize(static_cast<std::size_t>(n_top));
    return token;
}

}  // namespace

std::uint64_t prompt_key(const std::vector<std::int32_t>& prompt_ids) {
    std::uint64_t key = mix(prompt_ids.size());
    for (const auto id : prompt_ids) key = mix(key ^ static_cast<std::uint32_t>(id));
    return key;
}

int natural_length(std::uint64_t key) {
    return 8 + static_cast<int>(mix(key ^ 0xe05ULL) % 33);
}

GeneratedToken base_token(std::uint64_t key, int position, int n_top) {
    const auto hash = step_hash(key, position);
    return with_alternatives(word_candidate(hash % generated_word_count(), chosen_logprob(hash)),
                             hash, n_top);
}

bool build_variant_changes(std::uint64_t key, int every) {
    constexpr std::uint64_t kBuildSalt = 0xb1d5a17ULL;
    return every > 0 && mix(key ^ kBuildSalt) % static_cast<std::uint64_t>(every) == 0;
}

// The first token with a newline for its leading space: another piece and id, the same text once
// stripped, as a tokenizer that segments the start differently gives.
GeneratedToken leading_newline(GeneratedToken token) {
    const std::string& piece = token.chosen.piece;
    const std::string changed =
        "\n" + (!piece.empty() && piece.front() == ' ' ? piece.substr(1) : piece);
    const Candidate was = token.chosen;
    token.chosen.piece = changed;
    token.chosen.id = piece_id(changed);
    for (auto& candidate : token.top)
        if (candidate.id == was.id) candidate = token.chosen;
    return token;
}

GeneratedToken with_build_variant(BuildVariant variant, int every, std::uint64_t key,
                                  const StepContext& step, int n_top, GeneratedToken token) {
    if (variant == BuildVariant::None || !build_variant_changes(key, every)) return token;
    switch (variant) {
        case BuildVariant::Score:
            return other_word(key, step.position, n_top);
        case BuildVariant::Token:
            return step.position == 0 ? leading_newline(std::move(token)) : token;
        case BuildVariant::Logprob:
        case BuildVariant::None:
            break;
    }
    return shifted(std::move(token), key, step.position);
}

bool cache_changes_answer(std::uint64_t key, int every) {
    return every > 0 && mix(key ^ kCacheSalt) % static_cast<std::uint64_t>(every) == 0;
}

GeneratedToken with_cache_change(int every, std::uint64_t key, const StepContext& step, int n_top,
                                 GeneratedToken token) {
    if (!cache_changes_answer(key, every)) return token;
    // Never the token it replaces, whatever another knob made of that.
    GeneratedToken changed = other_word(key, step.position, n_top, kCacheSalt);
    for (std::uint64_t salt = kCacheSalt; changed.chosen.id == token.chosen.id;) {
        salt = mix(salt);
        changed = other_word(key, step.position, n_top, salt);
    }
    return changed;
}

GeneratedToken next_token(Divergence mode, std::uint64_t key, const StepContext& step, int n_top) {
    switch (mode) {
        case Divergence::None:
            break;
        case Divergence::Score:
            if (step.co_batched) return other_word(key, step.position, n_top);
            break;
        case Divergence::Stochastic:
            if (step.co_batched && step.susceptible) return other_word(key, step.position, n_top);
            break;
        case Divergence::Token:
            if (step.n_target >= 2 && step.position == step.n_target - 1)
                return final_whitespace(key, step, n_top);
            break;
        case Divergence::Logprob:
            if (step.co_batched)
                return shifted(base_token(key, step.position, n_top), key, step.position);
            break;
        case Divergence::Contamination:
            if (step.co_batched && step.neighbour_words && !step.neighbour_words->empty())
                return leaked_word(key, step, n_top);
            if (step.co_batched) return other_word(key, step.position, n_top);
            break;
        case Divergence::NotGreedy:
            return not_greedy(key, step.position, n_top);
    }
    return base_token(key, step.position, n_top);
}

}  // namespace bi::mock
