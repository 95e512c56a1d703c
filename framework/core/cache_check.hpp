// The cache arm (docs/design.md §5.2.6): A's prompts sent again to a one-slot server whose prompt
// cache is on, each once to prime the cache and once more to be served from it, and, where the
// endpoint takes token ids, continuation cuts that resume A's own answer after k of its tokens
// from the cached prefix. Every warm answer the cache really served is compared with A as a
// baseline check compares a build; the result stands beside the batch verdict and never changes
// it: the cache is a configuration of its own, not batching.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "baseline_comparison.hpp"
#include "server_kind.hpp"
#include "trial.hpp"

namespace bi::core {

// The warm answers of one kind of probe, keyed by test_id: the repeat of each prompt, or the
// i-th continuation cut of each answer (`cut_at` holds each id's k).
struct CacheProbe {
    std::string name;  // "repeat", "cut 1", "cut 2" ...
    ArmResults answers;
    std::map<std::string, std::int64_t, std::less<>> cut_at;  // empty for the repeat
    // Cut ids whose continuation left A's tokens but whose whole answer could not be
    // rebuilt for the scorer (no detokenizer): their tokens moved, their invariants are unknown.
    std::vector<std::string> unscored;
};

// One id whose warm answer differs from A's.
struct CacheChange {
    std::string test_id;
    std::string probe;                        // CacheProbe::name
    std::int64_t cut_at = 0;                  // k, for a cut; 0 for the repeat
    std::int64_t cached = 0;                  // prompt tokens the witness says the cache served
    bool invariant = false;                   // an invariant field moved (CHANGED); else drift only
    std::optional<std::int64_t> first_token;  // the first generated token that differs
    std::string divergence;                   // "near_tie", "decisive", "unknown" (forensics)
};

struct CacheCheck {
    BaselineStatus status = BaselineStatus::NotComparable;
    std::vector<std::string> reasons;        // why, one line each, the deciding one first
    std::string witness;                     // the kind's fields (CacheWitness::describe)
    std::int64_t n_ids = 0;                  // A's ids
    std::int64_t n_served = 0;               // ids whose repeat the cache served
    std::int64_t n_cuts = 0;                 // cut requests the cache served
    std::vector<std::string> not_exercised;  // ids whose repeat the cache did not serve
    std::vector<std::string> changed_ids;    // an invariant moved in a served probe
    std::vector<std::string> drift_ids;      // only text, tokens or logprobs moved
    std::vector<CacheChange> changes;        // at most kMaxSummaryIds, invariant ones first
    std::string cuts_note;                   // why no continuation cuts ran; "" when they did
};

// Whether `trial` (a probe of `test_id`) says the cache served part of its prompt: a cached count
// above 0, or an evaluated count below `prompt_tokens` (the prompt's full length as sent). The
// count of served tokens; nullopt when the answer states no witness.
std::optional<std::int64_t> cached_tokens(const TrialRecord& trial, std::int64_t prompt_tokens);

// The prompt's full length for each id of A and its repeat: the most either evaluated or
// counted.
std::map<std::string, std::int64_t, std::less<>> prompt_lengths(const ArmResults& a,
                                                                const ArmResults& a_prime);

// Compares each served probe answer with A. Fails closed: a kind without a witness, an A that
// does not reproduce itself (A' moved anything), A under the completion floor, or no id served
// is NotComparable; a served answer whose invariants moved is Changed, whatever else holds;
// fewer than the completion floor of A's ids served is NotComparable; moved text, tokens or
// logprobs alone is DriftOnly; else Same. `failure` (the arm given up, its server died) makes
// it NotComparable with that reason, keeping any change already found.
CacheCheck check_cache(const CacheWitness& witness, const ArmResults& a, const ArmResults& a_prime,
                       const std::vector<CacheProbe>& probes, std::string cuts_note,
                       double logit_drift_eps = 0.0, const std::string& failure = "");

// "CHANGED: 3 of 8 id(s) answer otherwise when served from the prompt cache (...)": the
// status word and its deciding reason, for progress lines and reports.
std::string cache_check_line(const CacheCheck& check);

}  // namespace bi::core
