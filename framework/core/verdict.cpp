#include "verdict.hpp"

#include <cmath>
#include <sstream>

#include "fixed_text.hpp"

namespace bi::core {

namespace {

using Reasons = std::vector<std::string>;

std::string join_ids(const std::vector<std::string>& ids, std::size_t limit = 8) {
    std::ostringstream out;
    for (std::size_t i = 0; i < ids.size() && i < limit; ++i) out << (i ? ", " : "") << ids[i];
    if (ids.size() > limit) out << ", ... (" << ids.size() - limit << " more)";
    return out.str();
}

std::string percent(double ratio) {
    return format_fixed(ratio * 100.0, 1) + "%";
}

std::string count(std::size_t n) {
    return std::to_string(n);
}

std::string verdict_line(const Verdict& v) {
    return "verdict " + verdict_summary(v);
}

// "co_batching" when B agreed with A; otherwise slot allocation explains at least part of it,
// and batching adds to it when C also moved away from B.
DivergenceClass red_class(const Verdict& v) {
    if (!v.ab || v.ab->clean()) return DivergenceClass::CoBatching;
    return v.bc && !v.bc->clean() ? DivergenceClass::SlotAllocationAndCoBatching
                                  : DivergenceClass::SlotAllocation;
}

std::optional<Anomaly> drift_anomaly(const UnionReport& ac) {
    const bool tokens = !ac.token_only_ids.empty();
    const bool logits = !ac.logprob_drift_ids.empty();
    if (tokens && logits) return Anomaly::TokenAndLogitDrift;
    if (tokens) return Anomaly::TokenOnly;
    if (logits) return Anomaly::LogitDrift;
    return std::nullopt;
}

// Every comparison and gate, evaluated whatever the status will be.
Verdict gather(const CellEvidence& e) {
    Verdict v;
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
    return v;
}

// Rule 1: the server must reproduce itself serially, or nothing batched can be certified.
const VerdictRule kSerialSelfCheck{
    "serial_self_check",
    [](const Verdict& v) { return v.serial_check && !v.serial_check->clean(); },
    Status::Failed,
    [](Verdict& v) { v.divergence_class = DivergenceClass::SerialNondeterminism; },
    [](const Verdict& v) {
        return Reasons{"serial self-check failed: A and A' differ on " +
                       count(v.serial_check->divergent_ids.size()) +
                       " id(s): " + join_ids(v.serial_check->divergent_ids)};
    },
    [](const Verdict& v) {
        if (!v.serial_check) return Reasons{"serial self-check not run (no A' arm)"};
        return Reasons{"serial self-check passed: A and A' agree on all " +
                       count(v.serial_check->n_compared) + " ids"};
    },
};

// Rule 2: any invariant divergence between A and any C pass is RED.
const VerdictRule kCoBatchingDivergence{
    "ac_invariant_divergence",
    [](const Verdict& v) { return !v.ac.clean(); },
    Status::Failed,
    [](Verdict& v) { v.divergence_class = red_class(v); },
    [](const Verdict& v) {
        Reasons r{"A vs C: " + count(v.ac.divergent_ids.size()) +
                  " id(s) diverged on at least one of " + count(v.ac.per_pass.size()) +
                  " pass(es): " + join_ids(v.ac.divergent_ids)};
        if (v.ab && !v.ab->clean())
            r.push_back("A vs B also diverged on " + count(v.ab->divergent_ids.size()) +
                        " id(s): slot allocation alone changes outputs");
        r.push_back(verdict_line(v));
        return r;
    },
    [](const Verdict& v) {
        return Reasons{"A vs C: no invariant divergence over " + count(v.ac.per_pass.size()) +
                       " pass(es), " + count(v.ac.n_comparisons) + " comparisons"};
    },
};

// Rule 3: without proof that requests really shared a batch, agreement proves nothing.
const VerdictRule kNoOverlap{
    "overlap",
    [](const Verdict& v) { return !v.overlap_ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        std::ostringstream why;
        why << "no real overlap: client depth " << v.client_depth << " (need >= 2), server peak "
            << "busy slots " << v.server_c.peak_busy_slots << ", peak requests_processing "
            << v.server_c.peak_requests_processing << " (need >= 2)";
        return Reasons{why.str(), verdict_line(v)};
    },
    [](const Verdict& v) {
        return Reasons{"overlap proven: client depth " + count(v.client_depth) +
                       ", server peak busy slots " + std::to_string(v.server_c.peak_busy_slots) +
                       ", peak requests_processing " +
                       std::to_string(v.server_c.peak_requests_processing)};
    },
};

// Rule 4: too few genuinely scored completions cannot carry a verdict.
const VerdictRule kCompletionFloorRule{
    "completion_floor",
    [](const Verdict& v) { return !v.completion_floor_ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        Reasons r;
        for (const auto& census : v.census)
            if (!census.meets(kCompletionFloor))
                r.push_back("completion floor missed in " + census.arm + ": " + count(census.n_ok) +
                            "/" + count(census.n) + " ok (" + percent(census.ratio()) + ", need " +
                            percent(kCompletionFloor) + ")");
        if (v.ac.per_pass.empty()) r.push_back("no concurrent pass ran");
        r.push_back(verdict_line(v));
        return r;
    },
    [](const Verdict&) { return Reasons{"completion floor met in A and every C pass"}; },
};

// Rule 5: each pass must co-batch most of its ids, with certain attribution.
const VerdictRule kCoverage{
    "cobatch_coverage",
    [](const Verdict& v) { return !v.cobatch_coverage_ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        Reasons r;
        for (const auto& c : v.coverage) {
            if (c.ok) continue;
            if (!c.attribution_certain)
                r.push_back("pass " + std::to_string(c.pass) + ": " +
                            count(c.missing_interval_ids.size()) +
                            " id(s) without a request interval, attribution uncertain");
            else
                r.push_back("pass " + std::to_string(c.pass) + ": only " + count(c.n_cobatched) +
                            " of " + count(c.n_ids) + " ids co-batched (need " + count(c.required) +
                            ")");
        }
        r.push_back(verdict_line(v));
        return r;
    },
    [](const Verdict&) { return Reasons{"co-batch coverage met in every pass"}; },
};

// Rule 6: A and C agree but B does not: the control moved, so the cell is only AMBER.
const VerdictRule kArmBDisagrees{
    "ab_invariant_divergence",
    [](const Verdict& v) { return v.ab && !v.ab->clean(); },
    Status::GreenWithCaveat,
    [](Verdict& v) { v.anomaly = Anomaly::AcAgreeBDisagrees; },
    [](const Verdict& v) {
        return Reasons{"A vs B diverged on " + count(v.ab->divergent_ids.size()) +
                           " id(s) while A and C agree: " + join_ids(v.ab->divergent_ids),
                       verdict_line(v)};
    },
    [](const Verdict& v) {
        Reasons r;
        if (v.ab) r.push_back("A vs B: no invariant divergence");
        if (!v.arm_b_serial)
            r.push_back("warning: arm B showed " + std::to_string(v.server_b->peak_busy_slots) +
                        " busy slots at once; it was meant to be serial");
        return r;
    },
};

// Rule 7: scores held but the generation itself moved.
const VerdictRule kGenerationDrift{
    "generation_drift",
    [](const Verdict& v) { return drift_anomaly(v.ac).has_value(); },
    Status::GreenWithCaveat,
    [](Verdict& v) { v.anomaly = drift_anomaly(v.ac); },
    [](const Verdict& v) {
        return Reasons{"generation drift under co-batching: " + count(v.ac.token_only_ids.size()) +
                           " id(s) changed text or tokens, " +
                           count(v.ac.logprob_drift_ids.size()) +
                           " id(s) changed chosen-token logprobs, invariant fields unchanged",
                       verdict_line(v)};
    },
    nullptr,
};

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

const std::vector<VerdictRule>& verdict_rules() {
    static const std::vector<VerdictRule> kRules{
        kSerialSelfCheck, kCoBatchingDivergence, kNoOverlap,      kCompletionFloorRule,
        kCoverage,        kArmBDisagrees,        kGenerationDrift};
    return kRules;
}

Verdict decide_verdict(const CellEvidence& evidence) {
    Verdict v = gather(evidence);
    auto& reasons = v.decision_reasons;
    for (const auto& rule : verdict_rules()) {
        if (rule.fires(v)) {
            v.status = rule.status;
            if (rule.classify) rule.classify(v);
            for (auto& line : rule.fired_reasons(v)) reasons.push_back(std::move(line));
            return v;
        }
        if (rule.passed_reasons)
            for (auto& line : rule.passed_reasons(v)) reasons.push_back(std::move(line));
    }
    v.status = Status::Green;
    reasons.push_back("verdict green: no divergence detected in this cell (not a proof)");
    return v;
}

ServerOverlapEvidence merge_pass_evidence(const std::vector<ServerOverlapEvidence>& passes) {
    ServerOverlapEvidence merged;
    double mean_sum = 0.0;
    std::size_t n_means = 0;
    for (const auto& pass : passes) {
        merged.peak_busy_slots = std::max(merged.peak_busy_slots, pass.peak_busy_slots);
        merged.peak_requests_processing =
            std::max(merged.peak_requests_processing, pass.peak_requests_processing);
        merged.n_samples += pass.n_samples;
        if (pass.mean_busy_slots_per_decode) {
            mean_sum += *pass.mean_busy_slots_per_decode;
            ++n_means;
        }
    }
    if (n_means > 0) merged.mean_busy_slots_per_decode = mean_sum / static_cast<double>(n_means);
    return merged;
}

std::string verdict_summary(Status status, const std::optional<DivergenceClass>& divergence_class,
                            const std::optional<Anomaly>& anomaly) {
    std::string summary(name(status));
    if (divergence_class) return summary + " (" + std::string(name(*divergence_class)) + ")";
    if (anomaly) return summary + " (" + std::string(name(*anomaly)) + ")";
    return summary;
}

std::string verdict_summary(const Verdict& v) {
    return verdict_summary(v.status, v.divergence_class, v.anomaly);
}

}  // namespace bi::core
