// Gathering a cell's evidence into every gate and comparison, then the precedence over it:
// apply_rules and decide_verdict.
#include "verdict.hpp"

#include <algorithm>
#include <set>

#include "composition.hpp"
#include "logprob_drift.hpp"

namespace bi::core {

namespace {

bool same_invariants(const TrialRecord& a, const TrialRecord& b) {
    const auto x = invariant_values(a);
    const auto y = invariant_values(b);
    for (std::size_t f = 0; f < x.size(); ++f)
        if (!canonical_equal(x[f].second, y[f].second)) return false;
    return true;
}

const ServerOverlapEvidence kNoServerEvidence{};

bool is_incomplete(const TrialRecord& r) {
    return r.failure_mode == FailureMode::Incomplete;
}

// Ids that some arm never completed because bi-run stopped it; they are compared nowhere.
std::vector<std::string> incomplete_ids(const CellEvidence& e) {
    std::set<std::string> ids;
    const auto scan = [&ids](const ArmResults& arm) {
        for (const auto& [id, r] : arm)
            if (is_incomplete(r)) ids.insert(id);
    };
    scan(e.arm_a);
    if (e.arm_a_prime) scan(*e.arm_a_prime);
    if (e.arm_b) scan(*e.arm_b);
    for (const auto& pass : e.arm_c) scan(pass);
    return {ids.begin(), ids.end()};
}

CellEvidence without_ids(CellEvidence e, const std::vector<std::string>& ids) {
    const auto drop = [&ids](ArmResults& arm) {
        for (const auto& id : ids) arm.erase(id);
    };
    drop(e.arm_a);
    if (e.arm_a_prime) drop(*e.arm_a_prime);
    if (e.arm_b) drop(*e.arm_b);
    for (auto& pass : e.arm_c) drop(pass);
    return e;
}

// A request that got no usable answer: the transport failed, or the answer contradicted itself
// (a stream whose pieces do not add up).
bool is_request_failure(const FailureLabel& label) {
    for (auto failure : {FailureMode::HttpTimeout, FailureMode::HttpError, FailureMode::ServerDied,
                         FailureMode::Oom, FailureMode::BadResponse})
        if (label.mode() == failure) return true;
    return false;
}

// Evidence a compared trial lacks although its reference has it, or although it was requested.
void find_missing_evidence(const ArmResults& reference, const ArmResults& other,
                           const std::string& arm, bool logprobs_requested,
                           std::vector<MissingEvidence>& out) {
    for (const auto& [id, ref] : reference) {
        const auto it = other.find(id);
        if (it == other.end() || !ref.ok() || !it->second.ok()) continue;
        const TrialRecord& r = it->second;
        if (ref.token_ids && !r.token_ids) out.push_back({id, arm, "token_ids"});
        if ((ref.token_logprobs || logprobs_requested) && !r.token_logprobs)
            out.push_back({id, arm, "token_logprobs"});
    }
}

// Every arm's every trial: a server that is not decoding greedily makes agreement meaningless.
void check_greedy(const CellEvidence& e, Verdict& v) {
    const auto scan = [&v](const ArmResults& arm, const std::string& label) {
        for (const auto& [id, trial] : arm) {
            if (trial.top_alternatives) v.gates.greedy.checked = true;
            auto found = first_greedy_violation(trial);
            if (!found) continue;
            ++v.gates.greedy.n_not_greedy;
            if (v.gates.greedy.first_violation) continue;
            found->arm = label;
            found->test_id = id;
            v.gates.greedy.first_violation = std::move(found);
        }
    };
    scan(e.arm_a, "A");
    if (e.arm_a_prime) scan(*e.arm_a_prime, "A'");
    if (e.arm_b) scan(*e.arm_b, "B");
    for (std::size_t t = 0; t < e.arm_c.size(); ++t) scan(e.arm_c[t], "C" + std::to_string(t + 1));
}

std::string_view text_of(const std::map<std::string, std::string, std::less<>>& texts,
                         const std::string& id) {
    const auto it = texts.find(id);
    return it == texts.end() ? std::string_view() : std::string_view(it->second);
}

// A divergent C completion holding words of a co-batched neighbour's prompt or A output that its
// own prompt and A output lack: the neighbours are the ids whose requests overlapped it that pass.
void mark_contamination(const CellEvidence& e, UnionReport& ac) {
    if (e.prompts.empty()) return;
    for (std::size_t t = 0; t < ac.per_pass.size() && t < e.arm_c.size(); ++t) {
        auto& pass = ac.per_pass[t];
        if (pass.forensics.empty()) continue;
        const auto compositions = pass_compositions(e.arm_c[t]);
        for (auto& [id, entry] : pass.forensics) {
            const auto c = e.arm_c[t].find(id);
            const auto a = e.arm_a.find(id);
            const auto neighbours = compositions.find(id);
            if (c == e.arm_c[t].end() || a == e.arm_a.end() || neighbours == compositions.end())
                continue;
            const std::vector<std::string_view> own{text_of(e.prompts, id), a->second.content};
            for (const auto& neighbour : neighbours->second) {
                const auto theirs = e.arm_a.find(neighbour);
                std::optional<std::string> gram =
                    foreign_ngram(c->second.content, own, text_of(e.prompts, neighbour));
                if (!gram && theirs != e.arm_a.end())
                    gram = foreign_ngram(c->second.content, own, theirs->second.content);
                if (!gram) continue;
                entry.contamination = Contamination{neighbour, std::move(*gram)};
                break;
            }
        }
    }
    merge_pass_forensics(ac);
}

// A vs A', A vs C over the passes, and with arm B: A vs B and B vs C.
void compare_arms_of(const CellEvidence& e, Verdict& v) {
    if (e.arm_a_prime)
        v.serial_check = compare_arms(e.arm_a, *e.arm_a_prime, "A", "A'", e.logit_drift_eps);
    v.ac = union_over_passes(e.arm_a, e.arm_c, "A", "C", e.logit_drift_eps);
    if (e.arm_b) {
        v.ab = compare_arms(e.arm_a, *e.arm_b, "A", "B", e.logit_drift_eps);
        v.bc = union_over_passes(*e.arm_b, e.arm_c, "B", "C", e.logit_drift_eps);
    }
}

// Arm B's server evidence and whether it was a slot control.
void gather_arm_b(const CellEvidence& e, ArmBCheck& b) {
    b.server = e.server_b;
    if (b.server) b.server->busy_samples.clear();
    if (!e.arm_b) return;
    b.unpinned = !e.arm_b_pinned;
    // A request the server ran on another slot than pinned: the pin was not honoured. A server
    // that does not say which slot it used is not contradicted.
    for (const auto& [id, trial] : *e.arm_b)
        if (trial.pinned_slot && trial.id_slot && *trial.id_slot != *trial.pinned_slot)
            ++b.pins_ignored;
}

// Each pass's token streams, co-batch coverage and client depth, then the overlap and lockstep
// gates over them.
void gather_overlap_and_coverage(const CellEvidence& e, Verdict& v) {
    v.gates.overlap.total_slots = e.reported_total_slots;
    v.gates.overlap.server = merge_pass_evidence(e.server_c_passes);
    v.gates.lockstep.checked = e.streamed;
    std::vector<const ServerOverlapEvidence*> servers;
    for (std::size_t t = 0; t < e.arm_c.size(); ++t) {
        const int pass = static_cast<int>(t + 1);
        const ServerOverlapEvidence* server =
            t < e.server_c_passes.size() ? &e.server_c_passes[t] : nullptr;
        servers.push_back(server);
        const LockstepEvidence* streams = nullptr;
        if (e.streamed) {
            v.gates.lockstep.per_pass.push_back(
                {pass,
                 t < e.c_schedules.size() ? std::optional(e.c_schedules[t]) : std::nullopt,
                 judge_pass_streams(e.arm_c[t], static_cast<int>(e.dispatch_n)),
                 {}});
            streams = &v.gates.lockstep.per_pass.back().streams;
        }
        v.gates.cobatch_coverage.per_pass.push_back(
            pass_coverage(e.arm_c[t], pass, server ? server : &kNoServerEvidence, streams));
        v.gates.overlap.per_pass_client_depth.push_back(
            v.gates.cobatch_coverage.per_pass.back().client_depth);
    }
    settle_overlap(v.gates, e.dispatch_n, servers, e.evidence);
    settle_lockstep(v.gates.lockstep, e.dispatch_n, v.gates.overlap, e.evidence);
    settle_coverage(v.gates.cobatch_coverage, !e.arm_c.empty());
}

void gather_missing_evidence(const CellEvidence& e, std::vector<MissingEvidence>& out) {
    find_missing_evidence(e.arm_a, e.arm_a, "A", e.logprobs_requested, out);
    if (e.arm_b) find_missing_evidence(e.arm_a, *e.arm_b, "B", e.logprobs_requested, out);
    for (std::size_t t = 0; t < e.arm_c.size(); ++t)
        find_missing_evidence(e.arm_a, e.arm_c[t], "C" + std::to_string(t + 1),
                              e.logprobs_requested, out);
}

// C trials that ran on the slot their id used in arm B, and how many of those differ from B.
void count_same_slot(const CellEvidence& e, Verdict& v) {
    if (!e.arm_b) return;
    for (const auto& pass : e.arm_c)
        for (const auto& [id, c] : pass) {
            const auto b = e.arm_b->find(id);
            if (b == e.arm_b->end() || !b->second.id_slot || c.id_slot != b->second.id_slot)
                continue;
            ++v.same_slot_compared;
            if (!same_invariants(b->second, c)) ++v.same_slot_divergent;
        }
}

// AC-divergent ids that A scored but a concurrent pass failed to complete: the user would see
// those requests fail, which is not the same finding as a changed answer.
void count_concurrency_failures(const CellEvidence& e, Verdict& v) {
    for (const auto& id : v.ac.divergent_ids) {
        const auto a = e.arm_a.find(id);
        if (a == e.arm_a.end() || !a->second.ok()) continue;
        for (const auto& pass : e.arm_c) {
            const auto c = pass.find(id);
            if (c != pass.end() && is_request_failure(c->second.failure_mode)) {
                ++v.concurrency_failures[std::string(c->second.failure_mode.word())];
                ++v.n_failed_under_concurrency;
                break;
            }
        }
    }
}

// The arms as the cert names them, A first: A, A', B, C1...
std::vector<std::pair<std::string, const ArmResults*>> named_arms(const CellEvidence& e) {
    std::vector<std::pair<std::string, const ArmResults*>> arms{{"A", &e.arm_a}};
    if (e.arm_a_prime) arms.emplace_back("A'", &*e.arm_a_prime);
    if (e.arm_b) arms.emplace_back("B", &*e.arm_b);
    for (std::size_t t = 0; t < e.arm_c.size(); ++t)
        arms.emplace_back("C" + std::to_string(t + 1), &e.arm_c[t]);
    return arms;
}

// Every comparison and gate, evaluated whatever the status will be.
Verdict gather(const CellEvidence& all) {
    Verdict v;
    v.gates.incomplete_ids = incomplete_ids(all);
    const CellEvidence e = without_ids(all, v.gates.incomplete_ids);
    compare_arms_of(e, v);
    v.dispatch_n = e.dispatch_n;
    v.kind_signals = e.evidence;
    v.identity_problems = e.identity_problems;
    gather_arm_b(e, v.gates.arm_b);
    gather_overlap_and_coverage(e, v);
    if (e.cache_witness) v.gates.cold_cache = cold_cache_gate(*e.cache_witness, named_arms(e));
    if (e.draft_fields)
        v.gates.drafting = drafting_gate(*e.draft_fields, e.draft_launch_flag, named_arms(e));
    v.gates.determinism = e.determinism;
    gather_missing_evidence(e, v.gates.missing_evidence);
    check_greedy(e, v);
    mark_contamination(e, v.ac);
    v.gates.completion_floor = completion_floor_gate(e.arm_a, e.arm_c, e.arm_b);
    v.gates.completion_floor.given_up = e.given_up;
    const SensitivityCounts counts =
        count_trials(e.arm_a, e.arm_c, v.gates.cobatch_coverage.per_pass, v.gates.overlap.per_pass,
                     v.ac, v.gates.lockstep.per_pass);
    v.sensitivity = sensitivity_bounds(counts, e.confidence);
    v.length = length_scope(e.arm_a, e.arm_c, e.n_predict);
    count_same_slot(e, v);
    count_concurrency_failures(e, v);
    record_pair_checks(v.gates, v.serial_check, v.ab, v.bc);
    return v;
}

}  // namespace

void apply_rules(Verdict& v, bool passed_reasons) {
    auto& reasons = v.decision_reasons;
    for (const auto& rule : verdict_rules()) {
        if (rule.fires(v)) {
            v.status = rule.status;
            if (rule.classify) rule.classify(v);
            v.rule = {std::string(name(rule.id)), reasons.size()};
            for (auto& line : rule.fired_reasons(v)) reasons.push_back(std::move(line));
            return;
        }
        if (passed_reasons && rule.passed_reasons)
            for (auto& line : rule.passed_reasons(v)) reasons.push_back(std::move(line));
    }
    v.status = Status::Green;
    v.rule = {std::string(kNoRuleFired), reasons.size()};
    reasons.emplace_back(kGreenReason);
}

Verdict decide_verdict(const CellEvidence& evidence) {
    Verdict v = gather(evidence);
    apply_rules(v);
    // Generation drift's line says how far the logprobs went, by the threshold of the evidence
    // (what the verdict itself does not hold), or that the answers carried none.
    if (v.rule.name == name(RuleId::GenerationDrift) &&
        v.rule.first_reason < v.decision_reasons.size())
        v.decision_reasons[v.rule.first_reason] +=
            "; " + (logprobs_compared(evidence.arm_a, evidence.arm_c)
                        ? logprob_drift_size(v.ac.max_logprob_delta, evidence.logit_drift_eps)
                        : std::string(kLogprobsNotCompared));
    return v;
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
