// The sensitivity bounds: the rate bounds of docs/design.md §6 from the counted trials.
#include "sensitivity.hpp"

namespace bi::core {

RateBound rate_bound(std::size_t n, std::size_t divergent, double confidence, bool cell_diverged) {
    RateBound b;
    b.n = n;
    b.divergent = divergent;
    if (n == 0) return b;
    if (!cell_diverged) {
        b.clopper_pearson_upper = zero_divergence_upper(n, confidence);
        b.rule_of_three_upper = rule_of_three(n);
        return b;
    }
    const RateInterval interval = clopper_pearson_interval(divergent, n, confidence);
    b.observed_rate = static_cast<double>(divergent) / static_cast<double>(n);
    b.interval_lower = interval.lower;
    b.interval_upper = interval.upper;
    return b;
}

Sensitivity sensitivity_bounds(const SensitivityCounts& counts, double confidence) {
    Sensitivity s;
    s.n_hot_trials = counts.n_hot_trials;
    s.divergences_seen = counts.divergent_ids;
    s.confidence = confidence;
    const bool diverged = counts.divergent_ids > 0;
    s.per_trial = rate_bound(counts.trials, counts.divergent_trials, confidence, diverged);
    s.per_prompt = rate_bound(counts.prompts, counts.divergent_ids, confidence, diverged);
    if (diverged)
        for (std::size_t t = 0; t < counts.per_pass.size(); ++t)
            s.per_pass.push_back({static_cast<int>(t + 1),
                                  rate_bound(counts.per_pass[t].first, counts.per_pass[t].second,
                                             confidence, diverged)});
    if (!diverged && counts.trials > 0) {
        s.rule_of_three_upper = rule_of_three(counts.trials);
        s.clopper_pearson_upper_95 = zero_divergence_upper(counts.trials, 0.95);
    }
    s.distinct_compositions = counts.distinct_compositions;
    return s;
}

SensitivityCounts recorded_counts(const Sensitivity& s) {
    SensitivityCounts counts;
    counts.n_hot_trials = s.n_hot_trials;
    counts.divergent_ids = s.divergences_seen;
    counts.trials = s.per_trial.n;
    counts.divergent_trials = s.per_trial.divergent;
    counts.prompts = s.per_prompt.n;
    for (const auto& pass : s.per_pass)
        counts.per_pass.emplace_back(pass.bound.n, pass.bound.divergent);
    counts.distinct_compositions = s.distinct_compositions;
    return counts;
}

}  // namespace bi::core
