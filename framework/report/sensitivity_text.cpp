#include "sensitivity_text.hpp"

#include <algorithm>

#include "core/sample_size.hpp"
#include "core/text.hpp"

namespace bi::report {

namespace {

std::string figure(double value) {
    return core::format_fixed(value, 4);
}

std::string percent(double confidence) {
    return core::format_general(confidence * 100.0) + "%";
}

std::string bound_text(const core::RateBound& b, const char* what, double confidence) {
    const std::string of = std::to_string(b.divergent) + " of " + std::to_string(b.n) + " " + what;
    if (b.n == 0) return "no " + std::string(what) + " counted: nothing ruled out";
    if (b.clopper_pearson_upper)
        return of + " diverged: rate <= " + figure(*b.clopper_pearson_upper) + " at " +
               percent(confidence) + " (rule of three " + figure(*b.rule_of_three_upper) + ")";
    return of + " diverged: observed " + figure(*b.observed_rate) + ", " + percent(confidence) +
           " interval [" + figure(*b.interval_lower) + ", " + figure(*b.interval_upper) + "]";
}

// Why fewer trials count than A and C made comparisons: " (57 of the 64 comparisons counted: 3
// not scored on both sides, 4 not shown co-batched)"; "" when every comparison counted.
std::string counted_of_compared(const core::Cert& cert) {
    const auto& ac = cert.divergence.ac;
    const std::size_t counted = cert.sensitivity.per_trial.n;
    if (counted >= ac.n_comparisons) return "";
    const auto less = [](std::size_t a, std::size_t b) { return a > b ? a - b : 0; };
    const std::size_t scored = std::min(ac.n_scored_comparisons, ac.n_comparisons);
    const std::size_t hot = std::min(cert.sensitivity.n_hot_trials, scored);
    std::vector<std::string> why;
    if (const auto n = less(ac.n_comparisons, scored))
        why.push_back(std::to_string(n) + " not scored on both sides");
    if (const auto n = less(scored, hot))
        why.push_back(std::to_string(n) + " not shown co-batched");
    if (const auto n = less(hot, counted))
        why.push_back(std::to_string(n) +
                      " co-batched in a pass whose overlap or staggered arrivals were not proven, "
                      "or in a batch already counted");
    std::string text = " (" + std::to_string(counted) + " of the " +
                       std::to_string(ac.n_comparisons) + " comparisons counted";
    for (std::size_t i = 0; i < why.size(); ++i) text += (i == 0 ? ": " : ", ") + why[i];
    return text + ")";
}

}  // namespace

std::vector<std::string> sensitivity_lines(const core::Cert& cert) {
    const core::Sensitivity& s = cert.sensitivity;
    std::vector<std::string> lines;
    lines.push_back("per trial: " + bound_text(s.per_trial, "trials", s.confidence) +
                    counted_of_compared(cert));
    lines.push_back("per prompt: " + bound_text(s.per_prompt, "prompts", s.confidence));
    for (const auto& pass : s.per_pass)
        lines.push_back("pass " + std::to_string(pass.pass) + ": " +
                        bound_text(pass.bound, "trials", s.confidence));
    if (const auto& plan = cert.plan)
        lines.push_back(
            "plan: target rate " + figure(plan->target_rate) + " at " + percent(plan->confidence) +
            " needs " + std::to_string(plan->trials_needed) + " counted trials; " +
            std::to_string(plan->trials_counted) + " counted in " +
            std::to_string(plan->passes_used) + " pass(es): " +
            (plan->reached ? "target reached"
             : plan->ended == core::PlanEnd::Divergence
                 ? "stopped at a divergence"
                 : "target NOT reached (--max-passes " + std::to_string(plan->max_passes) + ")"));
    if (const auto& length = cert.promotion_scope.length; length && length->generated_min)
        lines.push_back("length scope: n_predict " +
                        (length->n_predict ? std::to_string(*length->n_predict) : "?") +
                        ", generated " + std::to_string(*length->generated_min) + ".." +
                        std::to_string(*length->generated_max) + " tokens (median " +
                        std::to_string(*length->generated_median) + "), " +
                        std::to_string(length->n_hit_limit) + " of " +
                        std::to_string(length->n_trials) + " hit the limit");
    return lines;
}

std::string bound_cell(const core::RateBound& b) {
    const std::string n = " n=" + std::to_string(b.n);
    if (b.clopper_pearson_upper) return "<=" + figure(*b.clopper_pearson_upper) + n;
    if (b.observed_rate) return figure(*b.observed_rate) + n;
    return "-" + n;
}

}  // namespace bi::report
