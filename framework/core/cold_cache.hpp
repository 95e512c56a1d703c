// The cold-cache gate: every scored answer of arms A, A', B and C must have been computed from its
// prompt, not served from the server's prompt cache (docs/design.md §5.2.2). The kind declares
// the field each answer states it in (CacheWitness); an answer that shows a hit is no evidence of
// agreement, whatever it says, since a cached prefix is evaluated along another path.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "server_kind.hpp"
#include "trial.hpp"

namespace bi::core {

// One scored answer served, in part, from the prompt cache.
struct CacheHit {
    std::string test_id;
    std::string arm;          // "A", "A'", "B" or "C<t>"
    std::int64_t cached = 0;  // prompt tokens the witness says came from the cache
};

struct ColdCacheGate {
    std::string witness;           // the kind's fields (CacheWitness::describe); "": none declared
    std::int64_t witnessed = 0;    // scored answers that stated the witness
    std::int64_t unwitnessed = 0;  // scored answers that did not
    std::vector<CacheHit> hits;    // in arm order (A, A', B, C1...), ids sorted within an arm
    bool ok() const { return hits.empty(); }
};

// The gate over the arms, each named as the cert names it. An answer with a cached-tokens count
// above 0 is a hit; one with an evaluated-tokens count is a hit when it evaluated fewer than the
// prompt's tokens, taken as the largest count (evaluated or the server's prompt_tokens) any arm
// saw for that id.
ColdCacheGate cold_cache_gate(const CacheWitness& witness,
                              const std::vector<std::pair<std::string, const ArmResults*>>& arms);

}  // namespace bi::core
