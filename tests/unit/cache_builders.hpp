// Cache checks as core::check_cache gives them, one of each status, for the tests of what reads
// them: the reports, verify-cert and the cert's consistency.
#pragma once

#include <cstdint>
#include <string>

#include "core/cache_check.hpp"
#include "trial_builders.hpp"

namespace bi::testing {

inline core::CacheWitness cache_witness() {
    core::CacheWitness witness;
    witness.cached_tokens = {"timings.cache_n"};
    return witness;
}

// A's answers served again, each stating `cached` prompt tokens from the cache.
inline core::CacheProbe warm_repeat(const core::ArmResults& a, std::int64_t cached = 27) {
    core::CacheProbe probe;
    probe.name = "repeat";
    probe.answers = a;
    for (auto& [id, trial] : probe.answers) trial.prompt_cached = cached;
    return probe;
}

// Another answer than arm()'s: its extracted answer, score and text moved, and its tokens from
// position 2 on.
inline void change_answer(core::TrialRecord& trial) {
    trial.extracted_answer = "something else";
    trial.passed = false;
    trial.score = 0.0;
    trial.content = "other text";
    trial.content_sha = core::content_sha(trial.content);
    trial.token_ids = std::vector<std::int64_t>{1, 2, 9, 9};
}

// A check over arm(n_ids) (n_ids at least 5): SAME (every id served, every answer equal),
// CHANGED (id3's answer moved), DRIFT ONLY (id4's text moved) or NOT COMPARABLE (the cache
// served nothing).
inline core::CacheCheck cache_check_of(core::BaselineStatus status, int n_ids = 8) {
    const auto a = arm(n_ids);
    auto probe = warm_repeat(a);
    switch (status) {
        case core::BaselineStatus::Changed:
            change_answer(probe.answers.at("id3"));
            break;
        case core::BaselineStatus::DriftOnly: {
            auto& drifted = probe.answers.at("id4");
            drifted.content = "text-id4 but longer";
            drifted.content_sha = core::content_sha(drifted.content);
            break;
        }
        case core::BaselineStatus::NotComparable:
            for (auto& [id, trial] : probe.answers) trial.prompt_cached = 0;
            break;
        case core::BaselineStatus::Same:
            break;
    }
    return core::check_cache(cache_witness(), a, a, {probe},
                             "no continuation cuts: the chat endpoint takes no token ids");
}

}  // namespace bi::testing
