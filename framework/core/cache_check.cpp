#include "cache_check.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "baseline_documents.hpp"
#include "compare.hpp"
#include "coverage.hpp"
#include "forensics.hpp"
#include "gates.hpp"
#include "logprob_drift.hpp"
#include "text.hpp"

namespace bi::core {

namespace {

// "repeat: 27 cached prompt tokens, token 9 differs, near_tie"
std::string describe_probe(const CacheChange& change) {
    std::string text = change.probe;
    if (change.cut_at > 0) text += " after " + std::to_string(change.cut_at) + " token(s)";
    text += ": " + std::to_string(change.cached) + " cached prompt tokens";
    if (change.first_token) text += ", token " + std::to_string(*change.first_token) + " differs";
    if (!change.divergence.empty() && change.divergence != "unknown")
        text += ", " + change.divergence;
    return text;
}

// Each id once, with what every probe of it showed: "id (repeat: ...; cut 1 after 1 token(s):
// ...)", in the order the changes came.
std::vector<std::string> describe(const std::vector<CacheChange>& changes) {
    std::vector<std::string> ids;
    std::map<std::string, std::vector<std::string>> probes;
    for (const auto& change : changes) {
        auto& list = probes[change.test_id];
        if (list.empty()) ids.push_back(change.test_id);
        list.push_back(describe_probe(change));
    }
    std::vector<std::string> lines;
    lines.reserve(ids.size());
    for (const auto& id : ids) lines.push_back(id + " (" + join(probes[id], "; ") + ")");
    return lines;
}

// What A says of itself as a reference: an A that moves between A and A', or that answered too
// few, cannot tell a warm answer's change from its own.
std::vector<std::string> reference_problems(const ArmResults& a, const ArmResults& a_prime,
                                            double logit_drift_eps) {
    std::vector<std::string> lines;
    const auto repeat = serial_repeat(a, a_prime, logit_drift_eps);
    if (repeat.n_compared == 0)
        lines.push_back("the serial repeat A' answered no id of A");
    else if (!repeat.exact())
        lines.push_back("A does not reproduce itself serially (A' differs from A for " +
                        join_ids_capped(repeat.moved_ids()) +
                        "), so a warm answer's change is not known " + "to be the cache's");
    const auto census = completion_census(a, "A");
    if (!census.meets(kCompletionFloor))
        lines.push_back("A has " + std::to_string(census.n_ok) + " of " + std::to_string(census.n) +
                        " answers scored ok, under the completion floor");
    return lines;
}

}  // namespace

std::optional<std::int64_t> cached_tokens(const TrialRecord& trial, std::int64_t prompt_tokens) {
    if (!trial.ok()) return std::nullopt;
    if (trial.prompt_cached) return *trial.prompt_cached;
    if (trial.prompt_evaluated)
        return std::max<std::int64_t>(0, prompt_tokens - *trial.prompt_evaluated);
    return std::nullopt;
}

std::map<std::string, std::int64_t, std::less<>> prompt_lengths(const ArmResults& a,
                                                                const ArmResults& a_prime) {
    std::map<std::string, std::int64_t, std::less<>> lengths;
    for (const ArmResults* arm : {&a, &a_prime})
        for (const auto& [id, trial] : *arm) {
            std::int64_t& most = lengths[id];
            most = std::max({most, trial.prompt_evaluated.value_or(0),
                             trial.prompt_tokens_measured.value_or(0)});
        }
    return lengths;
}

CacheCheck check_cache(const CacheWitness& witness, const ArmResults& a, const ArmResults& a_prime,
                       const std::vector<CacheProbe>& probes, std::string cuts_note,
                       double logit_drift_eps, const std::string& failure) {
    CacheCheck check;
    check.witness = witness.describe();
    check.n_ids = static_cast<std::int64_t>(a.size());
    check.cuts_note = std::move(cuts_note);
    if (!witness.declared()) {
        check.reasons.push_back(
            "the server kind states no cache witness, so no warm answer is known to have been "
            "served from the cache");
        return check;
    }
    const auto lengths = prompt_lengths(a, a_prime);
    std::set<std::string> served_repeat;
    std::vector<CacheChange> invariant;
    std::vector<CacheChange> drift;
    std::optional<double> largest_delta;  // over the probes whose logprobs drifted
    for (const auto& probe : probes) {
        ArmResults served;
        ArmResults reference;
        std::map<std::string, std::int64_t> cached_of;
        for (const auto& [id, trial] : probe.answers) {
            const auto in_a = a.find(id);
            if (in_a == a.end()) continue;
            const auto length = lengths.find(id);
            const auto cut = probe.cut_at.find(id);
            const std::int64_t k = cut == probe.cut_at.end() ? 0 : cut->second;
            const auto cached =
                cached_tokens(trial, (length == lengths.end() ? 0 : length->second) + k);
            if (!cached || *cached <= 0) continue;
            if (std::find(probe.unscored.begin(), probe.unscored.end(), id) !=
                probe.unscored.end()) {
                // Its tokens left A's; what its whole answer would score is not known.
                CacheChange change;
                change.test_id = id;
                change.probe = probe.name;
                change.cut_at = k;
                change.cached = *cached;
                change.divergence = "unknown";
                drift.push_back(std::move(change));
                continue;
            }
            served.emplace(id, trial);
            reference.emplace(id, in_a->second);
            cached_of[id] = *cached;
        }
        if (probe.cut_at.empty())
            for (const auto& [id, trial] : served) served_repeat.insert(id);
        else
            check.n_cuts += static_cast<std::int64_t>(served.size());
        const auto report = compare_arms(reference, served, "A", probe.name, logit_drift_eps);
        const auto change_of = [&](const std::string& id, bool moved_invariant) {
            CacheChange change;
            change.test_id = id;
            change.probe = probe.name;
            const auto cut = probe.cut_at.find(id);
            change.cut_at = cut == probe.cut_at.end() ? 0 : cut->second;
            change.cached = cached_of[id];
            change.invariant = moved_invariant;
            if (const auto at = report.first_divergent_token.find(id);
                at != report.first_divergent_token.end())
                change.first_token = static_cast<std::int64_t>(at->second);
            if (const auto f = report.forensics.find(id); f != report.forensics.end())
                change.divergence = std::string(name(f->second.kind));
            return change;
        };
        for (const auto& id : report.divergent_ids) invariant.push_back(change_of(id, true));
        for (const auto* ids : {&report.token_only_ids, &report.logprob_drift_ids})
            for (const auto& id : *ids) drift.push_back(change_of(id, false));
        if (!report.logprob_drift_ids.empty())
            largest_delta = std::max(largest_delta.value_or(0.0), report.max_logprob_delta);
    }
    check.n_served = static_cast<std::int64_t>(served_repeat.size());
    for (const auto& [id, trial] : a)
        if (!served_repeat.count(id)) check.not_exercised.push_back(id);
    std::set<std::string> changed;
    for (const auto& change : invariant) changed.insert(change.test_id);
    std::set<std::string> drifted;
    for (const auto& change : drift)
        if (!changed.count(change.test_id)) drifted.insert(change.test_id);
    check.changed_ids.assign(changed.begin(), changed.end());
    check.drift_ids.assign(drifted.begin(), drifted.end());
    for (const auto* list : {&invariant, &drift})
        for (const auto& change : *list)
            if (check.changes.size() < kMaxSummaryIds) check.changes.push_back(change);

    const std::string of_ids = " of " + std::to_string(check.n_ids) + " id(s)";
    const auto changed_line = [&] {
        return std::to_string(changed.size()) + of_ids +
               " answer otherwise when served from the prompt cache: " +
               join_ids_capped(describe(invariant), 4);
    };
    const auto problems = reference_problems(a, a_prime, logit_drift_eps);
    if (!problems.empty()) {
        check.reasons = problems;
        return check;
    }
    if (!invariant.empty()) {
        check.status = BaselineStatus::Changed;
        check.reasons.push_back(changed_line());
        if (!failure.empty()) check.reasons.push_back("the cache arm did not finish: " + failure);
        return check;
    }
    if (!failure.empty()) {
        check.reasons.push_back("the cache arm did not finish: " + failure);
        return check;
    }
    const std::string served_text = std::to_string(check.n_served) + of_ids +
                                    " served from the prompt cache (" + check.witness + ")";
    if (check.n_served == 0) {
        check.reasons.push_back("the cache served none of the repeated prompts (" + check.witness +
                                " shows each computed cold), so nothing was exercised");
        return check;
    }
    const auto needed =
        static_cast<std::int64_t>(std::ceil(kCompletionFloor * static_cast<double>(check.n_ids)));
    if (check.n_served < needed) {
        check.reasons.push_back("only " + served_text + ", under the completion floor; not " +
                                "exercised: " + join_ids_capped(check.not_exercised));
        return check;
    }
    const std::string cuts_text =
        check.cuts_note.empty() ? ", " + std::to_string(check.n_cuts) + " continuation cut(s)" : "";
    if (!drift.empty()) {
        check.status = BaselineStatus::DriftOnly;
        check.reasons.push_back(std::to_string(drifted.size()) + of_ids +
                                " generate otherwise when served from the prompt cache, with "
                                "every invariant field equal: " +
                                join_ids_capped(describe(drift), 4));
        if (largest_delta)
            check.reasons.back() += "; " + logprob_drift_size(*largest_delta, logit_drift_eps);
        return check;
    }
    check.status = BaselineStatus::Same;
    check.reasons.push_back("every warm answer equals A's: " + served_text + cuts_text);
    if (!check.not_exercised.empty())
        check.reasons.push_back("not exercised (computed cold): " +
                                join_ids_capped(check.not_exercised));
    return check;
}

std::string cache_check_line(const CacheCheck& check) {
    return std::string(status_word(check.status)) +
           (check.reasons.empty() ? std::string() : ": " + check.reasons.front());
}

}  // namespace bi::core
