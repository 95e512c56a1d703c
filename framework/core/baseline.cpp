#include "baseline.hpp"

#include <algorithm>
#include <cstddef>

namespace bi::core {

namespace {

std::string joined(const std::vector<std::string>& ids, std::size_t at_most = 8) {
    std::string text;
    for (std::size_t i = 0; i < ids.size() && i < at_most; ++i) text += (i ? ", " : "") + ids[i];
    if (ids.size() > at_most) text += ", ... (" + std::to_string(ids.size()) + " in all)";
    return text;
}

// Why one side cannot stand as a reference: it has no serial repeat, or its repeat differs.
std::optional<std::string> not_self_consistent(const BaselineSide& side, const char* which,
                                               double eps) {
    if (!side.arm_a_prime)
        return std::string(which) +
               " run has no serial repeat (A'), so it is not known to "
               "reproduce itself";
    // Exactly: a side whose own repeat moves its text, tokens or logprobs cannot tell a
    // difference between builds from its own jitter.
    const auto self = compare_arms(side.arm_a, *side.arm_a_prime, "A", "A'", eps);
    std::vector<std::string> moved = self.divergent_ids;
    for (const auto* ids : {&self.token_only_ids, &self.logprob_drift_ids})
        moved.insert(moved.end(), ids->begin(), ids->end());
    if (moved.empty()) return std::nullopt;
    return std::string(which) + " run does not reproduce itself serially: A' differs from A for " +
           joined(moved);
}

void differs(std::vector<std::string>& reasons, const char* what, const std::string& stored,
             const std::string& current) {
    if (stored != current)
        reasons.push_back(std::string(what) + " differs: baseline " +
                          (stored.empty() ? "(none)" : stored) + ", now " +
                          (current.empty() ? "(none)" : current));
}

}  // namespace

std::string_view name(BaselineStatus status) {
    switch (status) {
        case BaselineStatus::Same:
            return "same";
        case BaselineStatus::Changed:
            return "changed";
        case BaselineStatus::DriftOnly:
            return "drift_only";
        case BaselineStatus::NotComparable:
            return "not_comparable";
    }
    return "not_comparable";
}

BaselineComparison compare_with_baseline(const BaselineSide& stored, const BaselineSide& current,
                                         double logit_drift_eps) {
    BaselineComparison out;
    differs(out.reasons, "the model file (sha256)", stored.model_sha256, current.model_sha256);
    differs(out.reasons, "the work rows (sha256)", stored.rows_sha256, current.rows_sha256);
    differs(out.reasons, "the scorer", stored.scorer, current.scorer);
    differs(out.reasons, "n_predict", std::to_string(stored.n_predict),
            std::to_string(current.n_predict));
    for (const auto& [side, which] :
         {std::pair{&stored, "the baseline"}, std::pair{&current, "the current"}})
        if (auto problem = not_self_consistent(*side, which, logit_drift_eps))
            out.reasons.push_back(std::move(*problem));
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
            " ids answer differently from the baseline: " + joined(report.divergent_ids) +
            (near_tie ? " (" + std::to_string(near_tie) + " at a near-tie first divergent token)"
                      : std::string()));
    } else if (!report.token_only_ids.empty() || !report.logprob_drift_ids.empty()) {
        out.status = BaselineStatus::DriftOnly;
        if (!report.token_only_ids.empty())
            out.reasons.push_back("scores held, but the generated text or tokens moved for " +
                                  joined(report.token_only_ids));
        if (!report.logprob_drift_ids.empty())
            out.reasons.push_back("scores and tokens held, but logprobs moved for " +
                                  joined(report.logprob_drift_ids));
    } else {
        out.status = BaselineStatus::Same;
        out.reasons.push_back("all " + std::to_string(report.n_compared) +
                              " ids answer exactly as the baseline did");
    }
    out.report = std::move(report);
    return out;
}

}  // namespace bi::core
