#include "lockstep.hpp"

#include <algorithm>
#include <cmath>

namespace bi::core {

namespace {

double median(std::vector<double> values) {
    if (values.empty()) return -1.0;
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

// The decode window of a request: from its first chunk to its last.
bool decoding_at(const StreamTimeline& r, double t) {
    return r.steps_ms.size() >= 2 && r.steps_ms.front() <= t && t <= r.steps_ms.back();
}

// The distance from `t` to the nearest chunk of `r`.
double nearest(const StreamTimeline& r, double t) {
    const auto& s = r.steps_ms;
    const auto above = std::lower_bound(s.begin(), s.end(), t);
    double best = INFINITY;
    if (above != s.end()) best = *above - t;
    if (above != s.begin()) best = std::min(best, t - *std::prev(above));
    return best;
}

// Kept to the microsecond: the cert's windows need no more.
double round_us(double ms) {
    return std::round(ms * 1000.0) / 1000.0;
}

// Whether another request, decoding at the single chunk of request i, made a token within the
// tolerance of its own step there (its interval up to its nearest chunk).
bool single_step_shared(const std::vector<StreamTimeline>& pass, std::size_t i, double tolerance) {
    const double t = pass[i].steps_ms.front();
    for (std::size_t j = 0; j < pass.size(); ++j) {
        const auto& s = pass[j].steps_ms;
        if (j == i || !decoding_at(pass[j], t)) continue;
        auto at = std::lower_bound(s.begin(), s.end(), t);
        if (at == s.end() || (at != s.begin() && t - *std::prev(at) < *at - t)) --at;
        const auto k = static_cast<std::size_t>(at - s.begin());
        const double gap = k > 0 ? s[k] - s[k - 1] : s[1] - s[0];
        if (gap > 0 && std::abs(s[k] - t) <= tolerance * gap) return true;
    }
    return false;
}

}  // namespace

bool id_cobatched(std::int64_t steps, std::int64_t shared) {
    return steps > 0 && static_cast<double>(shared) >= kLockstepShare * static_cast<double>(steps);
}

bool in_lockstep(std::int64_t steps, std::int64_t together) {
    return steps >= 2 && together >= 2 &&
           static_cast<double>(together) >= kLockstepShare * static_cast<double>(steps);
}

double lockstep_margin(std::int64_t steps, std::int64_t together) {
    if (steps <= 0) return -1.0;
    return static_cast<double>(together) / static_cast<double>(steps) - kLockstepShare;
}

double LockstepEvidence::batched_margin() const {
    double margin = lockstep_margin(multi_steps, lockstep_multi_steps);
    if (n >= 2 && phase >= 0.0) margin = std::max(margin, 0.5 - static_cast<double>(n) * phase);
    return margin;
}

std::int64_t LockstepEvidence::prefills_in_decode() const {
    std::int64_t inside = 0;
    for (const auto& r : ids)
        for (const auto& q : ids) {
            if (&q == &r || q.steps < 1 || q.last_ms <= q.first_ms) continue;
            // Half of q's own step either side: a first chunk within it of q's first was made
            // in the same step (sent together); within it of q's last, in q's last step.
            const double half = (q.last_ms - q.first_ms) / static_cast<double>(q.steps) / 2.0;
            if (r.first_ms > q.first_ms + half && r.first_ms < q.last_ms + half) {
                ++inside;
                break;
            }
        }
    return inside;
}

LockstepEvidence judge_lockstep(const std::vector<StreamTimeline>& pass, int n) {
    LockstepEvidence e;
    e.n = n;
    const double tolerance = 1.0 / (2.0 * std::max(n, 1));
    std::vector<double> pair_phases;
    for (std::size_t i = 0; i < pass.size(); ++i) {
        const auto& steps = pass[i].steps_ms;
        if (steps.size() == 1) {
            // One token, made by the step that ended its prefill: shared when a request then
            // decoding made a token in that same step.
            const bool together = single_step_shared(pass, i, tolerance);
            e.ids.push_back(
                {pass[i].id, round_us(steps[0]), round_us(steps[0]), 1, together ? 1 : 0});
            (together ? e.cobatched_ids : e.not_cobatched_ids).push_back(pass[i].id);
            continue;
        }
        if (steps.empty()) {
            e.too_short_ids.push_back(pass[i].id);
            continue;
        }
        std::int64_t shared = 0;
        std::int64_t judged = 0;
        std::vector<std::vector<double>> phases(pass.size());
        for (std::size_t k = 1; k < steps.size(); ++k) {
            const double gap = steps[k] - steps[k - 1];
            if (!(gap > 0)) continue;  // two chunks of one step: judged as one
            ++judged;
            int together = 1;
            int decoding = 1;
            for (std::size_t j = 0; j < pass.size(); ++j) {
                if (j == i || !decoding_at(pass[j], steps[k])) continue;
                ++decoding;
                const double offset = std::min(nearest(pass[j], steps[k]) / gap, 0.5);
                phases[j].push_back(offset);
                if (offset <= tolerance) ++together;
            }
            if (together >= 2) ++shared;
            e.peak = std::max(e.peak, together);
            if (decoding >= 2) {
                ++e.multi_steps;
                if (together >= decoding) ++e.lockstep_multi_steps;
            }
            if (decoding >= n) {
                ++e.full_steps;
                if (together >= n) ++e.lockstep_full_steps;
            }
        }
        for (const auto& with_j : phases)
            if (with_j.size() >= 2) pair_phases.push_back(median(with_j));
        e.ids.push_back(
            {pass[i].id, round_us(steps.front()), round_us(steps.back()), judged, shared});
        (id_cobatched(judged, shared) ? e.cobatched_ids : e.not_cobatched_ids)
            .push_back(pass[i].id);
    }
    e.phase = median(std::move(pair_phases));
    return e;
}

LockstepEvidence judge_pass_streams(const ArmResults& pass, int n) {
    std::vector<StreamTimeline> timelines;
    std::vector<std::string> unstreamed;
    for (const auto& [id, trial] : pass) {
        if (!trial.ok()) continue;
        if (trial.token_ms)
            timelines.push_back({id, *trial.token_ms});
        else
            unstreamed.push_back(id);
    }
    LockstepEvidence e = judge_lockstep(timelines, n);
    e.too_short_ids.insert(e.too_short_ids.end(), unstreamed.begin(), unstreamed.end());
    std::sort(e.too_short_ids.begin(), e.too_short_ids.end());
    return e;
}

}  // namespace bi::core
