// Sensitivity: what a GREEN rules out (docs/design.md §6). The rate bounds over the counted
// trials and prompts, and the generation lengths a cell was checked at.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coverage.hpp"
#include "gates.hpp"
#include "overlap.hpp"
#include "sample_size.hpp"
#include "trial.hpp"
#include "union.hpp"

namespace bi::core {

// One bound over n trials (or prompts) of which `divergent` diverged. In a cell without any
// divergence: the one-sided Clopper–Pearson upper bound at the cell's confidence and the rule of
// three; in a cell with one: the observed rate and its two-sided interval, and no upper bound.
struct RateBound {
    std::size_t n = 0;
    std::size_t divergent = 0;
    std::optional<double> clopper_pearson_upper;
    std::optional<double> rule_of_three_upper;
    std::optional<double> observed_rate;
    std::optional<double> interval_lower;
    std::optional<double> interval_upper;
};

struct PassRate {
    int pass = 0;
    RateBound bound;
};

// What the sensitivity is computed from. A trial counts when pass overlap and its own co-batching
// were proven and its composition (composition.hpp) is new for its id, or when it diverged (a
// divergence needs no proof that it was batched).
struct SensitivityCounts {
    std::size_t n_hot_trials = 0;  // proven co-batched scored comparisons, repeats included
    std::size_t divergent_ids = 0;
    std::size_t trials = 0;  // counted trials
    std::size_t divergent_trials = 0;
    std::size_t prompts = 0;  // distinct ids with a counted trial
    // Per pass (proven or divergent trials of that pass, divergent): repeats across passes
    // do not matter within one pass.
    std::vector<std::pair<std::size_t, std::size_t>> per_pass;
    std::map<std::string, std::size_t> distinct_compositions;  // per id
};

struct Sensitivity {
    std::size_t n_hot_trials = 0;      // scored A<->C comparisons whose co-batching was proven
    std::size_t divergences_seen = 0;  // divergent ids
    // The upstream contract's figures, over per_trial.n and only when nothing diverged.
    std::optional<double> rule_of_three_upper;       // 3 / n
    std::optional<double> clopper_pearson_upper_95;  // 1 - 0.05^(1/n)
    double confidence = kDefaultConfidence;
    RateBound per_trial;             // n = counted trials (distinct proven compositions)
    RateBound per_prompt;            // n = distinct items: the conservative one
    std::vector<PassRate> per_pass;  // only when something diverged: the spread over passes
    std::map<std::string, std::size_t> distinct_compositions;  // per id, ids that counted
};

// The generation lengths a cell was checked at: a cell checked at 64 tokens says nothing about
// 400. Over the scored trials of A and every C pass that report a generated-token count.
struct LengthScope {
    std::optional<std::int64_t> n_predict;
    std::size_t n_trials = 0;
    std::optional<std::int64_t> generated_min;
    std::optional<std::int64_t> generated_median;  // the lower median
    std::optional<std::int64_t> generated_max;
    std::size_t n_hit_limit = 0;  // stopped by the limit (finish_reason length/limit)
};

// Which trials count toward the bounds (see SensitivityCounts) and how many diverged: per C pass,
// the co-batched ids of its coverage that A and the pass both scored, whether its overlap was
// proven and its arrivals achieved what its schedule claims (`lockstep`, by pass; empty when the
// arms did not stream), and the divergent ids the A vs C report lists for it.
SensitivityCounts count_trials(const ArmResults& arm_a, const std::vector<ArmResults>& arm_c,
                               const std::vector<PassCoverage>& coverage,
                               const std::vector<PassOverlap>& overlap, const UnionReport& ac,
                               const std::vector<PassLockstep>& lockstep = {});

// Generated-token counts of the scored trials of A and every C pass.
LengthScope length_scope(const ArmResults& arm_a, const std::vector<ArmResults>& arm_c,
                         std::optional<std::int64_t> n_predict);

RateBound rate_bound(std::size_t n, std::size_t divergent, double confidence, bool cell_diverged);

// The bounds for the counts; a cell "diverged" when divergent_ids > 0.
Sensitivity sensitivity_bounds(const SensitivityCounts& counts, double confidence);

// The counts a cert's sensitivity records (every n and divergent), to recompute its bounds.
SensitivityCounts recorded_counts(const Sensitivity& s);

}  // namespace bi::core
