#include "cold_cache.hpp"

#include <algorithm>
#include <map>

namespace bi::core {

ColdCacheGate cold_cache_gate(const CacheWitness& witness,
                              const std::vector<std::pair<std::string, const ArmResults*>>& arms) {
    ColdCacheGate gate;
    gate.witness = witness.describe();
    // The prompt's tokens per id: the most any answer evaluated or counted.
    std::map<std::string, std::int64_t, std::less<>> prompt_tokens;
    for (const auto& [name, results] : arms)
        for (const auto& [id, trial] : *results) {
            std::int64_t& most = prompt_tokens[id];
            most = std::max({most, trial.prompt_evaluated.value_or(0),
                             trial.prompt_tokens_measured.value_or(0)});
        }
    // Every answer that states the witness counts, whatever its scorer made of it.
    for (const auto& [name, results] : arms)
        for (const auto& [id, trial] : *results) {
            std::int64_t cached = 0;
            if (trial.prompt_cached) {
                cached = *trial.prompt_cached;
            } else if (trial.prompt_evaluated) {
                cached = prompt_tokens[id] - *trial.prompt_evaluated;
            } else {
                if (trial.ok()) ++gate.unwitnessed;
                continue;
            }
            ++gate.witnessed;
            if (cached > 0) gate.hits.push_back({id, name, cached});
        }
    return gate;
}

}  // namespace bi::core
