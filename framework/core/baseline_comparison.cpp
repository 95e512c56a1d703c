#include "baseline_comparison.hpp"

#include <algorithm>
#include <cstddef>

#include "coverage.hpp"
#include "forensics.hpp"
#include "logprob_drift.hpp"
#include "text.hpp"
#include "verdict.hpp"

namespace bi::core {

namespace {

std::string percent(double ratio) {
    return format_general(ratio * 100.0, 3) + "%";
}

void differs(std::vector<std::string>& reasons, const char* what, const std::string& stored,
             const std::string& current) {
    if (stored != current)
        reasons.push_back(std::string(what) + " differs: baseline " +
                          (stored.empty() ? "(none)" : stored) + ", now " +
                          (current.empty() ? "(none)" : current));
}

}  // namespace

std::vector<std::string> reference_problems(const BaselineSide& side, const std::string& which) {
    std::vector<std::string> lines;
    for (const auto& problem : side.problems) lines.push_back(which + ": " + problem);
    if (side.terms.model_sha256.empty())
        lines.push_back(which + " run's model file has no sha256 to compare");
    if (side.terms.rows_sha256.empty())
        lines.push_back(which + " run's work rows have no sha256 to compare");
    if (!side.repeat) {
        lines.push_back(which +
                        " run has no serial repeat (A'), so it is not known to reproduce itself");
    } else if (side.repeat->n_compared == 0) {
        lines.push_back(which + " run's serial repeat (A') answered no id of A");
    } else if (!side.repeat->exact()) {
        // Exactly: a side whose own repeat moves its text, tokens or logprobs cannot tell a
        // difference between builds from its own jitter.
        lines.push_back(which + " run does not reproduce itself serially: A' differs from A for " +
                        join_ids_capped(side.repeat->moved_ids()));
    }
    // Answers that failed alike on both sides are no agreement.
    const auto census = completion_census(side.arm_a, "A");
    if (!census.meets(kCompletionFloor))
        lines.push_back(which + " run has " + std::to_string(census.n_ok) + " of " +
                        std::to_string(census.n) + " answers scored ok (" +
                        percent(census.ratio()) + "), under the " + percent(kCompletionFloor) +
                        " completion floor");
    for (const auto& [id, trial] : side.arm_a)
        if (const auto violation = first_greedy_violation(trial)) {
            lines.push_back(which + " run is not greedy decoding: " + id +
                            " chose a token that is not the top-1 at position " +
                            std::to_string(violation->position));
            break;
        }
    return lines;
}

std::string_view name(BaselineStatus status) {
    switch (status) {
        case BaselineStatus::Same:
            return "same";
        case BaselineStatus::Changed:
            return "changed";
        case BaselineStatus::DriftOnly:
            return "drift_only";
        case BaselineStatus::NotComparable:
            break;
    }
    return "not_comparable";
}

std::optional<BaselineStatus> parse_baseline_status(std::string_view text) {
    for (const auto status : {BaselineStatus::Same, BaselineStatus::Changed,
                              BaselineStatus::DriftOnly, BaselineStatus::NotComparable})
        if (name(status) == text) return status;
    return std::nullopt;
}

bool SerialRepeat::exact() const {
    return n_compared > 0 && divergent_ids.empty() && token_only_ids.empty() &&
           logprob_drift_ids.empty();
}

std::vector<std::string> SerialRepeat::moved_ids() const {
    std::vector<std::string> moved = divergent_ids;
    moved.insert(moved.end(), token_only_ids.begin(), token_only_ids.end());
    moved.insert(moved.end(), logprob_drift_ids.begin(), logprob_drift_ids.end());
    return moved;
}

SerialRepeat serial_repeat(const ArmResults& a, const ArmResults& a_prime, double logit_drift_eps) {
    auto report = compare_arms(a, a_prime, "A", "A'", logit_drift_eps);
    return {report.n_compared, std::move(report.divergent_ids), std::move(report.token_only_ids),
            std::move(report.logprob_drift_ids)};
}

std::vector<std::string> term_differences(const BaselineTerms& stored,
                                          const BaselineTerms& current) {
    std::vector<std::string> reasons;
    differs(reasons, "the source", std::string(name(stored.source)),
            std::string(name(current.source)));
    differs(reasons, "the model file (sha256)", stored.model_sha256, current.model_sha256);
    differs(reasons, "the work rows (sha256)", stored.rows_sha256, current.rows_sha256);
    differs(reasons, "the model name (it names the test ids)", stored.model_name,
            current.model_name);
    differs(reasons, "ctx", std::to_string(stored.ctx), std::to_string(current.ctx));
    differs(reasons, "reps", std::to_string(stored.reps), std::to_string(current.reps));
    differs(reasons, "the endpoint", stored.endpoint, current.endpoint);
    differs(reasons, "n_predict", std::to_string(stored.n_predict),
            std::to_string(current.n_predict));
    differs(reasons, "logprobs", std::to_string(stored.logprobs), std::to_string(current.logprobs));
    differs(reasons, "the scorer", stored.scorer, current.scorer);
    differs(reasons, "the scorer config", stored.scorer_config, current.scorer_config);
    return reasons;
}

BaselineComparison compare_with_baseline(const BaselineSide& stored, const BaselineSide& current,
                                         double logit_drift_eps) {
    BaselineComparison out;
    out.reasons = term_differences(stored.terms, current.terms);
    for (const auto& [side, which] :
         {std::pair{&stored, "the baseline"}, std::pair{&current, "the current"}})
        for (auto& line : reference_problems(*side, which)) out.reasons.push_back(std::move(line));
    if (!out.reasons.empty()) return out;  // NotComparable

    PairReport report = compare_arms(stored.arm_a, current.arm_a, "baseline", "A", logit_drift_eps);
    if (report.n_compared == 0) {
        out.reasons.push_back("no id was answered on both sides: nothing to compare");
        return out;
    }
    if (!report.clean()) {
        out.status = BaselineStatus::Changed;
        std::size_t near_tie = 0;
        for (const auto& id : report.divergent_ids) {
            const auto f = report.forensics.find(id);
            if (f != report.forensics.end() && f->second.kind == DivergenceKind::NearTie)
                ++near_tie;
        }
        out.reasons.push_back(
            std::to_string(report.divergent_ids.size()) + " of " +
            std::to_string(report.n_compared) +
            " ids answer differently from the baseline: " + join_ids_capped(report.divergent_ids) +
            (near_tie ? " (" + std::to_string(near_tie) + " at a near-tie first divergent token)"
                      : std::string()));
    } else if (!report.token_only_ids.empty() || !report.logprob_drift_ids.empty()) {
        out.status = BaselineStatus::DriftOnly;
        if (!report.token_only_ids.empty())
            out.reasons.push_back("scores held, but the generated text or tokens moved for " +
                                  join_ids_capped(report.token_only_ids));
        if (!report.logprob_drift_ids.empty())
            out.reasons.push_back("scores and tokens held, but logprobs moved for " +
                                  join_ids_capped(report.logprob_drift_ids) + "; " +
                                  logprob_drift_size(report.max_logprob_delta, logit_drift_eps));
    } else {
        out.status = BaselineStatus::Same;
        out.reasons.push_back("all " + std::to_string(report.n_compared) +
                              " ids answer exactly as the baseline did");
    }
    out.report = std::move(report);
    return out;
}

}  // namespace bi::core
