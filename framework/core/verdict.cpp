#include "verdict.hpp"

#include <cmath>
#include <sstream>

namespace bi::core {

namespace {

std::string join_ids(const std::vector<std::string>& ids, std::size_t limit = 8) {
    std::ostringstream out;
    for (std::size_t i = 0; i < ids.size() && i < limit; ++i) out << (i ? ", " : "") << ids[i];
    if (ids.size() > limit) out << ", ... (" << ids.size() - limit << " more)";
    return out.str();
}

std::string percent(double ratio) {
    std::ostringstream out;
    out.precision(1);
    out << std::fixed << ratio * 100.0 << "%";
    return out.str();
}

// "co_batching" when B agreed with A; otherwise slot allocation explains at least part of it,
// and batching adds to it when C also moved away from B.
std::string red_class(const Verdict& v) {
    if (!v.ab || v.ab->clean()) return "co_batching";
    return v.bc && !v.bc->clean() ? "slot_allocation+co_batching" : "slot_allocation";
}

std::string drift_anomaly(const UnionReport& ac) {
    const bool tokens = !ac.token_only_ids.empty();
    const bool logits = !ac.logprob_drift_ids.empty();
    if (tokens && logits) return "token_and_logit_drift";
    if (tokens) return "token_only";
    if (logits) return "logit_drift";
    return "";
}

}  // namespace

Sensitivity sensitivity_bounds(std::size_t n_hot_trials, std::size_t divergences_seen) {
    Sensitivity s;
    s.n_hot_trials = n_hot_trials;
    s.divergences_seen = divergences_seen;
    if (n_hot_trials > 0) {
        const double n = static_cast<double>(n_hot_trials);
        s.rule_of_three_upper = 3.0 / n;
        if (divergences_seen == 0) s.clopper_pearson_upper_95 = 1.0 - std::pow(0.05, 1.0 / n);
    }
    return s;
}

Verdict decide_verdict(const CellEvidence& e) {
    Verdict v;
    auto& reasons = v.decision_reasons;

    // Every gate is evaluated so the cert carries all the evidence; precedence picks the status.
    if (e.arm_a_prime) v.serial_check = compare_arms(e.arm_a, *e.arm_a_prime, "A", "A'");
    v.ac = union_over_passes(e.arm_a, e.arm_c, "A", "C");
    if (e.arm_b) {
        v.ab = compare_arms(e.arm_a, *e.arm_b, "A", "B");
        v.bc = union_over_passes(*e.arm_b, e.arm_c, "B", "C");
    }

    v.server_c = e.server_c;
    v.server_b = e.server_b;
    v.arm_b_serial = !e.server_b || e.server_b->peak_busy_slots <= 1;
    for (std::size_t t = 0; t < e.arm_c.size(); ++t) {
        v.coverage.push_back(pass_coverage(e.arm_c[t], static_cast<int>(t + 1)));
        v.per_pass_client_depth.push_back(v.coverage.back().client_depth);
        v.client_depth = std::max(v.client_depth, v.coverage.back().client_depth);
    }
    v.overlap_ok = v.client_depth >= 2 && e.server_c.shows_overlap();

    v.census.push_back(completion_census(e.arm_a, "A"));
    for (std::size_t t = 0; t < e.arm_c.size(); ++t)
        v.census.push_back(completion_census(e.arm_c[t], "C" + std::to_string(t + 1)));
    v.completion_floor_ok = !e.arm_c.empty();
    for (const auto& census : v.census) v.completion_floor_ok &= census.meets(kCompletionFloor);

    v.cobatch_coverage_checked = !e.arm_c.empty();
    v.cobatch_coverage_ok = v.cobatch_coverage_checked;
    for (const auto& coverage : v.coverage) v.cobatch_coverage_ok &= coverage.ok;

    v.sensitivity = sensitivity_bounds(v.ac.n_scored_comparisons, v.ac.divergent_ids.size());

    // 1. The server must reproduce itself serially, or nothing batched can be certified.
    if (v.serial_check) {
        if (!v.serial_check->clean()) {
            reasons.push_back("serial self-check failed: A and A' differ on " +
                              std::to_string(v.serial_check->divergent_ids.size()) + " id(s): " +
                              join_ids(v.serial_check->divergent_ids));
            v.status = status::kFailed;
            v.divergence_class = "serial_nondeterminism";
            return v;
        }
        reasons.push_back("serial self-check passed: A and A' agree on all " +
                          std::to_string(v.serial_check->n_compared) + " ids");
    } else {
        reasons.push_back("serial self-check not run (no A' arm)");
    }

    // 2. Any invariant divergence between A and any C pass is RED.
    if (!v.ac.clean()) {
        v.status = status::kFailed;
        v.divergence_class = red_class(v);
        reasons.push_back("A vs C: " + std::to_string(v.ac.divergent_ids.size()) +
                          " id(s) diverged on at least one of " + std::to_string(e.arm_c.size()) +
                          " pass(es): " + join_ids(v.ac.divergent_ids));
        if (v.ab && !v.ab->clean())
            reasons.push_back("A vs B also diverged on " +
                              std::to_string(v.ab->divergent_ids.size()) +
                              " id(s): slot allocation alone changes outputs");
        reasons.push_back("verdict failed (" + v.divergence_class + ")");
        return v;
    }
    reasons.push_back("A vs C: no invariant divergence over " + std::to_string(e.arm_c.size()) +
                      " pass(es), " + std::to_string(v.ac.n_comparisons) + " comparisons");

    // 3. Without proof that requests really shared a batch, agreement proves nothing.
    if (!v.overlap_ok) {
        v.status = status::kGreenUnverified;
        std::ostringstream why;
        why << "no real overlap: client depth " << v.client_depth << " (need >= 2), server peak "
            << "busy slots " << e.server_c.peak_busy_slots << ", peak requests_processing "
            << e.server_c.peak_requests_processing << " (need >= 2)";
        reasons.push_back(why.str());
        reasons.push_back("verdict green_unverified");
        return v;
    }
    reasons.push_back("overlap proven: client depth " + std::to_string(v.client_depth) +
                      ", server peak busy slots " + std::to_string(e.server_c.peak_busy_slots) +
                      ", peak requests_processing " +
                      std::to_string(e.server_c.peak_requests_processing));

    // 4. Too few genuinely scored completions cannot carry a verdict.
    if (!v.completion_floor_ok) {
        v.status = status::kGreenUnverified;
        for (const auto& census : v.census)
            if (!census.meets(kCompletionFloor))
                reasons.push_back("completion floor missed in " + census.arm + ": " +
                                  std::to_string(census.n_ok) + "/" + std::to_string(census.n) +
                                  " ok (" + percent(census.ratio()) + ", need " +
                                  percent(kCompletionFloor) + ")");
        if (e.arm_c.empty()) reasons.push_back("no concurrent pass ran");
        reasons.push_back("verdict green_unverified");
        return v;
    }
    reasons.push_back("completion floor met in A and every C pass");

    // 5. Each pass must co-batch most of its ids, with certain attribution.
    if (!v.cobatch_coverage_ok) {
        v.status = status::kGreenUnverified;
        for (const auto& c : v.coverage) {
            if (c.ok) continue;
            if (!c.attribution_certain)
                reasons.push_back("pass " + std::to_string(c.pass) + ": " +
                                  std::to_string(c.missing_interval_ids.size()) +
                                  " id(s) without a request interval, attribution uncertain");
            else
                reasons.push_back("pass " + std::to_string(c.pass) + ": only " +
                                  std::to_string(c.n_cobatched) + " of " + std::to_string(c.n_ids) +
                                  " ids co-batched (need " + std::to_string(c.required) + ")");
        }
        reasons.push_back("verdict green_unverified");
        return v;
    }
    reasons.push_back("co-batch coverage met in every pass");

    // 6. A and C agree but B does not: the control moved, so the cell is only AMBER.
    if (v.ab && !v.ab->clean()) {
        v.status = status::kGreenWithCaveat;
        v.anomaly = "AC_agree_B_disagrees";
        reasons.push_back("A vs B diverged on " + std::to_string(v.ab->divergent_ids.size()) +
                          " id(s) while A and C agree: " + join_ids(v.ab->divergent_ids));
        reasons.push_back("verdict green_with_caveat (" + v.anomaly + ")");
        return v;
    }
    if (v.ab) reasons.push_back("A vs B: no invariant divergence");
    if (!v.arm_b_serial)
        reasons.push_back("warning: arm B showed " + std::to_string(e.server_b->peak_busy_slots) +
                          " busy slots at once; it was meant to be serial");

    // 7. Scores held but the generation itself moved.
    const std::string anomaly = drift_anomaly(v.ac);
    if (!anomaly.empty()) {
        v.status = status::kGreenWithCaveat;
        v.anomaly = anomaly;
        reasons.push_back("generation drift under co-batching: " +
                          std::to_string(v.ac.token_only_ids.size()) +
                          " id(s) changed text or tokens, " +
                          std::to_string(v.ac.logprob_drift_ids.size()) +
                          " id(s) changed chosen-token logprobs, invariant fields unchanged");
        reasons.push_back("verdict green_with_caveat (" + anomaly + ")");
        return v;
    }

    v.status = status::kGreen;
    reasons.push_back("verdict green: no divergence detected in this cell (not a proof)");
    return v;
}

}  // namespace bi::core
