// How many trials a zero-divergence run needs, and the binomial bounds a cert states: the exact
// Clopper–Pearson bounds (one-sided for 0 of n, two-sided for k of n) and the rule of three.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace bi::core {

inline constexpr double kDefaultConfidence = 0.95;

// n = ceil(ln(1 - C) / ln(1 - P)): the fewest trials whose zero-divergence one-sided
// Clopper–Pearson upper bound at confidence C is at most P. Requires 0 < P < 1, 0 < C < 1.
std::size_t trials_needed(double target_rate, double confidence);

// One-sided Clopper–Pearson upper bound for 0 divergences in n trials: 1 - (1 - C)^(1/n).
double zero_divergence_upper(std::size_t n, double confidence);

// 3 / n, the rule-of-three approximation of the 95% upper bound; meaningful only for 0 of n.
double rule_of_three(std::size_t n);

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 <= x <= 1 (continued
// fraction, relative accuracy ~1e-14).
double regularized_incomplete_beta(double a, double b, double x);

// The x in [0, 1] with I_x(a, b) = p, by bisection to 1e-12.
double beta_quantile(double a, double b, double p);

struct RateInterval {
    double lower = 0.0;
    double upper = 1.0;
};

// The two-sided Clopper–Pearson interval at confidence C for k divergences in n > 0 trials:
// lower = Beta^-1((1-C)/2; k, n-k+1) (0 when k = 0), upper = Beta^-1(1-(1-C)/2; k+1, n-k)
// (1 when k = n).
RateInterval clopper_pearson_interval(std::size_t k, std::size_t n, double confidence);

// ---- planned passes ----

// What ended a planned sequence of concurrent passes; the cert records it as plan.ended.
enum class PlanEnd {
    Reached,     // enough counted trials for the target rate
    MaxPasses,   // the cap came first: the target was not reached
    Divergence,  // an invariant divergence: a RED needs no more samples
};

struct PassPlan {
    std::size_t trials_needed = 0;
    int max_passes = 0;
};

// The decision after `passes_run` passes that gave `trials_counted` counted trials: nullopt to
// run another pass, else what ends the plan. A divergence ends it before anything else, reaching
// the target before the cap.
std::optional<PlanEnd> plan_end(const PassPlan& plan, int passes_run, std::size_t trials_counted,
                                bool diverged);

// The --dry-run estimate of planned passes from the work-set size: at least
// ceil(needed / items) passes (a pass counts at most one trial per item), at most the cap.
struct PassEstimate {
    std::size_t trials_needed = 0;
    int min_passes = 0;
    bool within_cap = true;  // min_passes <= max_passes
};
PassEstimate estimate_passes(double target_rate, double confidence, std::size_t n_items,
                             int max_passes);

std::string_view name(PlanEnd end);
// The inverse of name(); nullopt for a word that is not in the table.
std::optional<PlanEnd> parse_plan_end(std::string_view text);

}  // namespace bi::core
