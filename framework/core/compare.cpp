#include "compare.hpp"

#include <algorithm>
#include <cmath>

namespace bi::core {

namespace {

// Everything the server generated, not only the text: a changed reasoning trace, tool call,
// token count or stop reason is drift even when the content came out the same.
bool same_generation(const TrialRecord& a, const TrialRecord& b) {
    if (a.content != b.content) return false;
    if (a.token_ids && b.token_ids && *a.token_ids != *b.token_ids) return false;
    if (a.reasoning_content != b.reasoning_content) return false;
    if (!canonical_equal(a.tool_calls, b.tool_calls)) return false;
    if (a.completion_tokens != b.completion_tokens) return false;
    return a.finish_reason == b.finish_reason;
}

// Exact comparison of the chosen-token logprobs; absent on either side means "not compared".
bool logprobs_differ(const TrialRecord& a, const TrialRecord& b, double& max_delta) {
    if (!a.token_logprobs || !b.token_logprobs) return false;
    const auto& x = *a.token_logprobs;
    const auto& y = *b.token_logprobs;
    bool differ = x.size() != y.size();
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
        if (x[i] != y[i]) {
            differ = true;
            max_delta = std::max(max_delta, std::fabs(x[i] - y[i]));
        }
    }
    return differ;
}

}  // namespace

std::optional<std::size_t> first_token_difference(const std::vector<std::int64_t>& a,
                                                  const std::vector<std::int64_t>& b) {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) return i;
    if (a.size() != b.size()) return n;
    return std::nullopt;
}

PairReport compare_arms(const ArmResults& left, const ArmResults& right, std::string left_arm,
                        std::string right_arm, double logit_drift_eps) {
    PairReport report;
    report.left_arm = std::move(left_arm);
    report.right_arm = std::move(right_arm);

    for (const auto& [id, a] : left) {
        auto it = right.find(id);
        if (it == right.end()) {
            report.only_left.push_back(id);
            report.divergent_ids.push_back(id);
            continue;
        }
        const TrialRecord& b = it->second;
        ++report.n_compared;
        if (a.ok() && b.ok()) ++report.n_scored_both;

        const bool generation_same = same_generation(a, b);
        const auto left_values = invariant_values(a);
        const auto right_values = invariant_values(b);
        bool divergent = false;
        for (std::size_t f = 0; f < left_values.size(); ++f) {
            if (canonical_equal(left_values[f].second, right_values[f].second)) continue;
            divergent = true;
            report.rows.push_back({id, std::string(left_values[f].first), left_values[f].second,
                                   right_values[f].second, a.content_sha, b.content_sha,
                                   generation_same});
        }

        if (divergent || !generation_same)
            if (auto found = divergence_forensics(a, b)) {
                if (found->at.basis != DivergenceBasis::Char)
                    report.first_divergent_token[id] = found->at.index;
                report.forensics.emplace(id, std::move(*found));
            }

        double delta = 0.0;
        const bool tokens_agree = !a.token_ids || !b.token_ids || *a.token_ids == *b.token_ids;
        const bool logprob_moved = logprobs_differ(a, b, delta);
        if (tokens_agree) report.max_logprob_delta = std::max(report.max_logprob_delta, delta);

        if (divergent) {
            report.divergent_ids.push_back(id);
        } else {
            if (!generation_same) report.token_only_ids.push_back(id);
            const bool below_eps = generation_same && delta < logit_drift_eps;
            if (logprob_moved && !below_eps) {
                report.logprob_drift_ids.push_back(id);
                // Over the common prefix: past a changed token the logprobs are of other tokens.
                const auto f = report.forensics.find(id);
                const bool prefix =
                    f != report.forensics.end() && f->second.max_prefix_logprob_delta.has_value();
                report.logprob_deltas[id] = prefix ? *f->second.max_prefix_logprob_delta : delta;
            }
        }

        for (auto* group : {&report.by_family[a.family], &report.by_fill[format_fill(a.fill)]}) {
            ++group->n_compared;
            if (divergent) ++group->n_divergent;
        }
    }
    for (const auto& [id, b] : right) {
        if (left.find(id) != left.end()) continue;
        report.only_right.push_back(id);
        report.divergent_ids.push_back(id);
    }
    std::sort(report.divergent_ids.begin(), report.divergent_ids.end());
    return report;
}

}  // namespace bi::core
