#include "sample_size.hpp"

#include <cmath>

namespace bi::core {

std::size_t trials_needed(double target_rate, double confidence) {
    const double n = std::log1p(-confidence) / std::log1p(-target_rate);
    // A quotient a rounding error above a whole number must not cost one more trial.
    const double whole = std::round(n);
    if (std::fabs(n - whole) < 1e-9 * whole) return static_cast<std::size_t>(whole);
    return static_cast<std::size_t>(std::ceil(n));
}

double zero_divergence_upper(std::size_t n, double confidence) {
    return 1.0 - std::pow(1.0 - confidence, 1.0 / static_cast<double>(n));
}

double rule_of_three(std::size_t n) {
    return 3.0 / static_cast<double>(n);
}

namespace {

// The continued fraction of I_x(a, b) (modified Lentz), converging fast for x < (a+1)/(a+b+2).
double beta_continued_fraction(double a, double b, double x) {
    constexpr double kTiny = 1e-300;
    constexpr double kEpsilon = 1e-15;
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    if (std::fabs(d) < kTiny) d = kTiny;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= 10000; ++m) {
        const double m2 = 2.0 * m;
        double step = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
        d = 1.0 + step * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1.0 + step / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1.0 / d;
        h *= d * c;
        step = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
        d = 1.0 + step * d;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = 1.0 + step / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1.0 / d;
        const double delta = d * c;
        h *= delta;
        if (std::fabs(delta - 1.0) < kEpsilon) break;
    }
    return h;
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
    if (x <= 0.0) return 0.0;
    if (x >= 1.0) return 1.0;
    const double log_front =
        std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    const double front = std::exp(log_front);
    if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
    return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

double beta_quantile(double a, double b, double p) {
    double lo = 0.0;
    double hi = 1.0;
    while (hi - lo > 1e-12) {
        const double mid = 0.5 * (lo + hi);
        if (regularized_incomplete_beta(a, b, mid) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

RateInterval clopper_pearson_interval(std::size_t k, std::size_t n, double confidence) {
    const double alpha = 1.0 - confidence;
    const double kd = static_cast<double>(k);
    const double nd = static_cast<double>(n);
    RateInterval interval;
    interval.lower = k == 0 ? 0.0 : beta_quantile(kd, nd - kd + 1.0, alpha / 2.0);
    interval.upper = k >= n ? 1.0 : beta_quantile(kd + 1.0, nd - kd, 1.0 - alpha / 2.0);
    return interval;
}

std::optional<PlanEnd> plan_end(const PassPlan& plan, int passes_run, std::size_t trials_counted,
                                bool diverged) {
    if (diverged) return PlanEnd::Divergence;
    if (trials_counted >= plan.trials_needed) return PlanEnd::Reached;
    if (passes_run >= plan.max_passes) return PlanEnd::MaxPasses;
    return std::nullopt;
}

std::string_view name(PlanEnd end) {
    switch (end) {
        case PlanEnd::Reached:
            return "reached";
        case PlanEnd::MaxPasses:
            return "max_passes";
        case PlanEnd::Divergence:
            return "divergence";
    }
    return "?";  // unreachable while the switch lists every enumerator
}

std::optional<PlanEnd> parse_plan_end(std::string_view text) {
    for (auto end : {PlanEnd::Reached, PlanEnd::MaxPasses, PlanEnd::Divergence})
        if (name(end) == text) return end;
    return std::nullopt;
}

PassEstimate estimate_passes(double target_rate, double confidence, std::size_t n_items,
                             int max_passes) {
    PassEstimate e;
    e.trials_needed = trials_needed(target_rate, confidence);
    const std::size_t items = n_items == 0 ? 1 : n_items;
    e.min_passes = static_cast<int>((e.trials_needed + items - 1) / items);
    e.within_cap = e.min_passes <= max_passes;
    return e;
}

}  // namespace bi::core
