#include <catch2/catch.hpp>

#include <cmath>

#include "core/sample_size.hpp"

using namespace bi;

namespace {

// P(X <= k) for X ~ Binomial(n, p), summing the probabilities term by term: a method that
// shares nothing with the incomplete beta function under test.
double binomial_cdf(std::size_t k, std::size_t n, double p) {
    double term = std::pow(1.0 - p, static_cast<double>(n));
    double sum = 0.0;
    for (std::size_t i = 0; i <= k; ++i) {
        sum += term;
        term *= static_cast<double>(n - i) / static_cast<double>(i + 1) * p / (1.0 - p);
    }
    return sum;
}

// The p at which a monotone function of p crosses `target`, by 200 halvings.
template <typename F>
double crossing(F f, double target, bool increasing) {
    double lo = 0.0, hi = 1.0;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        if ((f(mid) < target) == increasing)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

}  // namespace

TEST_CASE("the trials a target rate needs", "[sample_size]") {
    CHECK(core::trials_needed(0.01, 0.95) == 299);
    CHECK(core::trials_needed(0.05, 0.95) == 59);
    CHECK(core::trials_needed(0.001, 0.99) == 4603);
    // The bound of exactly that many trials meets the target; one fewer does not.
    for (double p : {0.01, 0.02, 0.005}) {
        const auto n = core::trials_needed(p, 0.95);
        CHECK(core::zero_divergence_upper(n, 0.95) <= p);
        CHECK(core::zero_divergence_upper(n - 1, 0.95) > p);
    }
}

TEST_CASE("zero of n: one-sided Clopper-Pearson and the rule of three", "[sample_size]") {
    CHECK(std::round(core::zero_divergence_upper(128, 0.95) * 1e4) / 1e4 == Approx(0.0231));
    CHECK(core::zero_divergence_upper(1, 0.95) == Approx(0.95));
    CHECK(core::rule_of_three(300) == Approx(0.01));
    // The one-sided bound is the p at which seeing no divergence has probability 1 - C.
    CHECK(core::zero_divergence_upper(128, 0.95) ==
          Approx(crossing([](double p) { return binomial_cdf(0, 128, p); }, 0.05, false))
              .epsilon(1e-9));
}

TEST_CASE("the regularized incomplete beta on closed forms", "[sample_size]") {
    for (double x : {0.0, 0.1, 0.37, 0.5, 0.93, 1.0}) {
        CHECK(core::regularized_incomplete_beta(1, 1, x) == Approx(x).margin(1e-12));
        CHECK(core::regularized_incomplete_beta(3, 1, x) == Approx(x * x * x).margin(1e-12));
        CHECK(core::regularized_incomplete_beta(1, 4, x) ==
              Approx(1 - std::pow(1 - x, 4)).margin(1e-12));
    }
    CHECK(core::regularized_incomplete_beta(7.5, 7.5, 0.5) == Approx(0.5).margin(1e-12));
    CHECK(core::beta_quantile(2, 1, 0.25) == Approx(0.5).margin(1e-10));
}

TEST_CASE("two-sided Clopper-Pearson for 2 of 128 against binomial tails", "[sample_size]") {
    const auto interval = core::clopper_pearson_interval(2, 128, 0.95);
    // Lower: P(X >= 2) = 0.025; upper: P(X <= 2) = 0.025, each found on the binomial sum.
    const double lower =
        crossing([](double p) { return 1.0 - binomial_cdf(1, 128, p); }, 0.025, true);
    const double upper = crossing([](double p) { return binomial_cdf(2, 128, p); }, 0.025, false);
    CHECK(interval.lower == Approx(lower).margin(1e-9));
    CHECK(interval.upper == Approx(upper).margin(1e-9));
    // The same figures worked out once by hand from those tails.
    CHECK(interval.lower == Approx(0.0018979).margin(1e-7));
    CHECK(interval.upper == Approx(0.0553026).margin(1e-7));
}

TEST_CASE("two-sided Clopper-Pearson at the edges", "[sample_size]") {
    const auto none = core::clopper_pearson_interval(0, 50, 0.95);
    CHECK(none.lower == 0.0);
    CHECK(none.upper == Approx(1.0 - std::pow(0.025, 1.0 / 50)).margin(1e-9));
    const auto all = core::clopper_pearson_interval(50, 50, 0.95);
    CHECK(all.upper == 1.0);
    CHECK(all.lower == Approx(std::pow(0.025, 1.0 / 50)).margin(1e-9));
    for (std::size_t k : {1u, 5u, 17u}) {
        const auto i = core::clopper_pearson_interval(k, 40, 0.9);
        const double upper =
            crossing([k](double p) { return binomial_cdf(k, 40, p); }, 0.05, false);
        CHECK(i.upper == Approx(upper).margin(1e-9));
        CHECK(i.lower < static_cast<double>(k) / 40.0);
    }
}

TEST_CASE("planned passes stop at a divergence, the target or the cap", "[sample_size]") {
    const core::PassPlan plan{299, 10};
    CHECK_FALSE(core::plan_end(plan, 1, 32, false));
    CHECK_FALSE(core::plan_end(plan, 9, 298, false));
    CHECK(core::plan_end(plan, 9, 299, false) == core::PlanEnd::Reached);
    CHECK(core::plan_end(plan, 10, 200, false) == core::PlanEnd::MaxPasses);
    CHECK(core::plan_end(plan, 10, 299, false) == core::PlanEnd::Reached);
    // A divergence ends the plan even when the target or the cap was reached with it.
    CHECK(core::plan_end(plan, 1, 32, true) == core::PlanEnd::Divergence);
    CHECK(core::plan_end(plan, 10, 400, true) == core::PlanEnd::Divergence);
}

TEST_CASE("a plan's end reads back from the word the cert writes", "[sample_size]") {
    for (auto end : {core::PlanEnd::Reached, core::PlanEnd::MaxPasses, core::PlanEnd::Divergence})
        CHECK(core::parse_plan_end(core::name(end)) == end);
    CHECK(core::name(core::PlanEnd::MaxPasses) == "max_passes");
    CHECK_FALSE(core::parse_plan_end("continue"));
    CHECK_FALSE(core::parse_plan_end("Reached"));
}
