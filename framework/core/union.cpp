#include "union.hpp"

#include <algorithm>
#include <set>

namespace bi::core {

void merge_pass_forensics(UnionReport& report) {
    report.forensics.clear();
    for (const auto& pass : report.per_pass)
        for (const auto& [id, entry] : pass.forensics) {
            auto [it, inserted] = report.forensics.emplace(id, entry);
            if (!inserted && severity(entry) > severity(it->second)) it->second = entry;
        }
}

UnionReport union_over_passes(const ArmResults& reference, const std::vector<ArmResults>& passes,
                              const std::string& reference_arm, const std::string& pass_arm,
                              double logit_drift_eps) {
    UnionReport report;
    std::set<std::string> divergent, token_only, logprob_drift;
    for (std::size_t t = 0; t < passes.size(); ++t) {
        PairReport pass = compare_arms(reference, passes[t], reference_arm,
                                       pass_arm + std::to_string(t + 1), logit_drift_eps);
        divergent.insert(pass.divergent_ids.begin(), pass.divergent_ids.end());
        token_only.insert(pass.token_only_ids.begin(), pass.token_only_ids.end());
        logprob_drift.insert(pass.logprob_drift_ids.begin(), pass.logprob_drift_ids.end());
        report.per_pass_divergent.push_back(pass.divergent_ids.size());
        report.per_pass_token_only.push_back(pass.token_only_ids.size());
        report.n_scored_comparisons += pass.n_scored_both;
        report.n_comparisons += pass.n_compared;
        report.max_logprob_delta = std::max(report.max_logprob_delta, pass.max_logprob_delta);
        for (auto& [id, entry] : pass.forensics) entry.pass = static_cast<int>(t + 1);
        for (const auto& [id, delta] : pass.logprob_deltas) {
            auto [it, inserted] = report.logprob_deltas.emplace(id, delta);
            if (!inserted) it->second = std::max(it->second, delta);
        }
        for (const auto& [id, index] : pass.first_divergent_token) {
            auto [it, inserted] = report.first_divergent_token.emplace(id, index);
            if (!inserted) it->second = std::min(it->second, index);
        }
        report.per_pass.push_back(std::move(pass));
    }
    report.divergent_ids.assign(divergent.begin(), divergent.end());
    // An invariant divergence on one pass outranks generation drift seen on another.
    for (const auto& id : token_only)
        if (!divergent.count(id)) report.token_only_ids.push_back(id);
    for (const auto& id : logprob_drift)
        if (!divergent.count(id)) report.logprob_drift_ids.push_back(id);
    for (const auto& id : divergent) report.logprob_deltas.erase(id);
    merge_pass_forensics(report);
    return report;
}

}  // namespace bi::core
