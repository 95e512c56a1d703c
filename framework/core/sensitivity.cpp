// The sensitivity of docs/design.md §6: which trials count, the rate bounds over them, and the
// generation lengths a cell was checked at.
#include "sensitivity.hpp"

#include <algorithm>
#include <set>

#include "composition.hpp"

namespace bi::core {

namespace {

bool scored_both(const ArmResults& a, const ArmResults& c, const std::string& id) {
    const auto x = a.find(id);
    const auto y = c.find(id);
    return x != a.end() && y != c.end() && x->second.ok() && y->second.ok();
}

}  // namespace

SensitivityCounts count_trials(const ArmResults& arm_a, const std::vector<ArmResults>& arm_c,
                               const std::vector<PassCoverage>& coverage,
                               const std::vector<PassOverlap>& overlap, const UnionReport& ac,
                               const std::vector<PassLockstep>& lockstep) {
    SensitivityCounts counts;
    std::vector<std::set<std::string>> proven(arm_c.size());
    for (std::size_t t = 0; t < arm_c.size(); ++t)
        for (const auto& id : coverage[t].cobatched_ids) {
            if (!scored_both(arm_a, arm_c[t], id)) continue;
            ++counts.n_hot_trials;
            const bool achieved = t >= lockstep.size() || lockstep[t].arrivals_achieved();
            if (t < overlap.size() && overlap[t].ok() && achieved) proven[t].insert(id);
        }
    const CompositionCount compositions = count_compositions(arm_c, proven);
    counts.distinct_compositions = compositions.distinct_per_id;
    counts.divergent_ids = ac.divergent_ids.size();
    std::set<std::string> prompts;
    for (std::size_t t = 0; t < arm_c.size(); ++t) {
        std::set<std::string> counted(compositions.counted_ids[t].begin(),
                                      compositions.counted_ids[t].end());
        const auto& divergent = ac.per_pass[t].divergent_ids;
        counted.insert(divergent.begin(), divergent.end());
        prompts.insert(counted.begin(), counted.end());
        // Within one pass every id runs once, so a pass's rate is over all its proven trials.
        std::set<std::string> in_pass = proven[t];
        in_pass.insert(divergent.begin(), divergent.end());
        counts.per_pass.emplace_back(in_pass.size(), divergent.size());
        counts.trials += counted.size();
        counts.divergent_trials += divergent.size();
    }
    counts.prompts = prompts.size();
    return counts;
}

LengthScope length_scope(const ArmResults& arm_a, const std::vector<ArmResults>& arm_c,
                         std::optional<std::int64_t> n_predict) {
    LengthScope scope;
    scope.n_predict = n_predict;
    std::vector<std::int64_t> lengths;
    const auto scan = [&](const ArmResults& arm) {
        for (const auto& [id, r] : arm) {
            if (!r.ok() || !r.completion_tokens) continue;
            lengths.push_back(*r.completion_tokens);
            const bool limited = r.finish_reason == "length" || r.finish_reason == "limit" ||
                                 (n_predict && *r.completion_tokens >= *n_predict);
            if (limited) ++scope.n_hit_limit;
        }
    };
    scan(arm_a);
    for (const auto& pass : arm_c) scan(pass);
    scope.n_trials = lengths.size();
    if (lengths.empty()) return scope;
    std::sort(lengths.begin(), lengths.end());
    scope.generated_min = lengths.front();
    scope.generated_median = lengths[(lengths.size() - 1) / 2];
    scope.generated_max = lengths.back();
    return scope;
}

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
