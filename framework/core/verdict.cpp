#include "verdict.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "composition.hpp"
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
    if (!v.ab || v.ab->clean())
        return v.ab && !v.gates.arm_b.slot_control() ? DivergenceClass::CoBatchingOrSlotAllocation
                                                     : DivergenceClass::CoBatching;
    if (v.same_slot_compared > 0)
        return v.same_slot_divergent == 0 ? DivergenceClass::SlotAllocation
                                          : DivergenceClass::SlotAllocationAndCoBatching;
    return v.bc && !v.bc->clean() ? DivergenceClass::SlotAllocationAndCoBatching
                                  : DivergenceClass::SlotAllocation;
}

bool same_invariants(const TrialRecord& a, const TrialRecord& b) {
    const auto x = invariant_values(a);
    const auto y = invariant_values(b);
    for (std::size_t f = 0; f < x.size(); ++f)
        if (!canonical_equal(x[f].second, y[f].second)) return false;
    return true;
}

std::optional<Anomaly> drift_anomaly(const UnionReport& ac) {
    const bool tokens = !ac.token_only_ids.empty();
    const bool logits = !ac.logprob_drift_ids.empty();
    if (tokens && logits) return Anomaly::TokenAndLogitDrift;
    if (tokens) return Anomaly::TokenOnly;
    if (logits) return Anomaly::LogitDrift;
    return std::nullopt;
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

bool is_transport_failure(const FailureLabel& label) {
    for (auto failure : {FailureMode::HttpTimeout, FailureMode::HttpError, FailureMode::ServerDied,
                         FailureMode::Oom})
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

std::string cell_overlap_problem(std::int64_t n, const std::optional<std::int64_t>& total_slots,
                                 const KindEvidence& spec) {
    if (n < 2) return "N = " + std::to_string(n) + ": one request at a time cannot co-batch";
    if (spec.capacity_field.empty()) return "";  // the capacity is the argument bi-run launched
    if (!total_slots)
        return "the N-slot server did not report " + spec.capacity_field + " in " + spec.props_path;
    if (*total_slots != n)
        return "the N-slot server reports " + spec.capacity_field + " " +
               std::to_string(*total_slots) + ", asked for N = " + std::to_string(n);
    return "";
}

// "llamacpp:requests_processing" is said as "requests_processing".
std::string short_metric(const std::string& name) {
    const auto colon = name.rfind(':');
    return colon == std::string::npos ? name : name.substr(colon + 1);
}

std::string hinted(const std::string& text, const std::string& hint) {
    return hint.empty() ? text : text + " (" + hint + ")";
}

// Overlap at N for one pass: client depth and every signal the kind declares reach N, and they
// agree (llama-server: /slots, /metrics requests_processing, busy slots per decode).
PassOverlap pass_overlap(int pass, std::size_t client_depth, const ServerOverlapEvidence* server,
                         std::int64_t n, const KindEvidence& spec) {
    PassOverlap o;
    o.pass = pass;
    o.client_depth = client_depth;
    const std::string at = "pass " + std::to_string(pass) + ": ";
    const std::string need = " (need " + std::to_string(n) + ")";
    // No window at all reads as a window in which neither endpoint answered, so that a cert's
    // record of it replays to the same problems.
    ServerOverlapEvidence none;
    none.slots_available = false;
    none.metrics_available = false;
    if (!server) server = &none;
    o.server = *server;
    o.server.busy_samples.clear();
    if (static_cast<std::int64_t>(client_depth) < n)
        o.problems.push_back(at + "client depth " + std::to_string(client_depth) + need);
    if (spec.has_slots()) {
        if (!server->slots_available)
            o.problems.push_back(at +
                                 hinted(spec.slots_path + " gave no evidence", spec.slots_hint));
        else if (server->peak_busy_slots < n)
            o.problems.push_back(at + "server peak busy slots " +
                                 std::to_string(server->peak_busy_slots) + need);
    }
    const std::string gauge = short_metric(spec.running_gauge);
    if (spec.has_gauge()) {
        if (!server->metrics_available)
            o.problems.push_back(at +
                                 hinted(spec.metrics_path + " gave no " + gauge, spec.gauge_hint));
        else if (server->peak_requests_processing < n)
            o.problems.push_back(
                at + spec.metrics_path + " " + gauge + " peaked at " +
                std::to_string(server->peak_requests_processing) + need +
                (spec.has_slots() && server->slots_available && server->peak_busy_slots >= n
                     ? ", contradicting " + spec.slots_path
                     : ""));
    }
    const std::string first_signal = spec.has_slots() ? spec.slots_path : gauge;
    if (spec.has_steps() && server->mean_busy_slots_per_decode &&
        !(*server->mean_busy_slots_per_decode > static_cast<double>(n) / 2.0)) {
        const std::string per_step = spec.step_mean.empty()
                                         ? " per step (" + short_metric(spec.step_sum) + ")"
                                         : " busy slots per decode";
        const std::string counters = spec.step_mean.empty() ? "step" : "decode";
        o.problems.push_back(at + "the " + counters + " counters say " +
                             format_fixed(*server->mean_busy_slots_per_decode, 2) + per_step +
                             " (need more than " + format_fixed(static_cast<double>(n) / 2.0, 1) +
                             "), contradicting " + first_signal);
    }
    return o;
}

}  // namespace

OverlapFinding evaluate_overlap(const OverlapInputs& in) {
    OverlapFinding f;
    if (const auto problem = cell_overlap_problem(in.dispatch_n, in.total_slots, in.evidence);
        !problem.empty())
        f.problems.push_back(problem);
    if (!in.evidence.has_any()) f.problems.push_back(std::string(kNoBatchingEvidence));
    f.arm_b_serial = !in.server_b || (in.server_b->peak_busy_slots <= 1 &&
                                      in.server_b->peak_requests_processing <= 1);
    if (!f.arm_b_serial)
        f.problems.push_back("arm B (serial) showed " +
                             std::to_string(in.server_b->peak_busy_slots) + " busy slots and " +
                             std::to_string(in.server_b->peak_requests_processing) +
                             " requests processing at once: the server's evidence cannot be "
                             "trusted");
    for (std::size_t t = 0; t < in.client_depths.size(); ++t) {
        const ServerOverlapEvidence* server =
            t < in.pass_servers.size() ? in.pass_servers[t] : nullptr;
        f.per_pass.push_back(pass_overlap(static_cast<int>(t + 1), in.client_depths[t], server,
                                          in.dispatch_n, in.evidence));
        for (const auto& problem : f.per_pass.back().problems) f.problems.push_back(problem);
    }
    if (in.client_depths.empty()) f.problems.push_back("no concurrent pass ran");
    return f;
}

namespace {

bool scored_both(const ArmResults& a, const ArmResults& c, const std::string& id) {
    const auto x = a.find(id);
    const auto y = c.find(id);
    return x != a.end() && y != c.end() && x->second.ok() && y->second.ok();
}

// Which trials count toward the bounds (see SensitivityCounts) and how many diverged.
SensitivityCounts count_trials(const CellEvidence& e, const Verdict& v) {
    SensitivityCounts counts;
    std::vector<std::set<std::string>> proven(e.arm_c.size());
    for (std::size_t t = 0; t < e.arm_c.size(); ++t)
        for (const auto& id : v.gates.cobatch_coverage.per_pass[t].cobatched_ids) {
            if (!scored_both(e.arm_a, e.arm_c[t], id)) continue;
            ++counts.n_hot_trials;
            if (t < v.gates.overlap.per_pass.size() && v.gates.overlap.per_pass[t].ok())
                proven[t].insert(id);
        }
    const CompositionCount compositions = count_compositions(e.arm_c, proven);
    counts.distinct_compositions = compositions.distinct_per_id;
    counts.divergent_ids = v.ac.divergent_ids.size();
    std::set<std::string> prompts;
    for (std::size_t t = 0; t < e.arm_c.size(); ++t) {
        std::set<std::string> counted(compositions.counted_ids[t].begin(),
                                      compositions.counted_ids[t].end());
        const auto& divergent = v.ac.per_pass[t].divergent_ids;
        counted.insert(divergent.begin(), divergent.end());
        prompts.insert(counted.begin(), counted.end());
        // Within one pass every id runs once, so a pass's rate is over all its proven trials.
        std::set<std::string> in_pass = proven[t];
        in_pass.insert(divergent.begin(), divergent.end());
        counts.per_pass.emplace_back(in_pass.size(), divergent.size());
        counts.trials += counted.size();
        counts.divergent_trials += divergent.size();
    }
    counts.prompts = prompts.size();
    return counts;
}

// Generated-token counts of the scored trials of A and every C pass.
LengthScope length_scope(const CellEvidence& e) {
    LengthScope scope;
    scope.n_predict = e.n_predict;
    std::vector<std::int64_t> lengths;
    const auto scan = [&](const ArmResults& arm) {
        for (const auto& [id, r] : arm) {
            if (!r.ok() || !r.completion_tokens) continue;
            lengths.push_back(*r.completion_tokens);
            const bool limited = r.finish_reason == "length" || r.finish_reason == "limit" ||
                                 (e.n_predict && *r.completion_tokens >= *e.n_predict);
            if (limited) ++scope.n_hit_limit;
        }
    };
    scan(e.arm_a);
    for (const auto& pass : e.arm_c) scan(pass);
    scope.n_trials = lengths.size();
    if (lengths.empty()) return scope;
    std::sort(lengths.begin(), lengths.end());
    scope.generated_min = lengths.front();
    scope.generated_median = lengths[(lengths.size() - 1) / 2];
    scope.generated_max = lengths.back();
    return scope;
}

}  // namespace

namespace {

// Every comparison and gate, evaluated whatever the status will be.
}  // namespace

void record_pair_checks(Verdict& v) {
    ArmBCheck& b = v.gates.arm_b;
    b.ran = v.ab.has_value();
    b.ab_passed = v.ab ? std::optional<bool>(v.ab->clean()) : std::nullopt;
    b.bc_passed = v.bc ? std::optional<bool>(v.bc->clean()) : std::nullopt;
    SerialSelfCheck& s = v.gates.serial_self_check;
    s = {};
    s.ran = v.serial_check.has_value();
    if (v.serial_check) {
        s.passed = v.serial_check->clean();
        s.n_compared = v.serial_check->n_compared;
        s.divergent_ids = v.serial_check->divergent_ids;
    }
}

namespace {

Verdict gather(const CellEvidence& all) {
    Verdict v;
    v.gates.incomplete_ids = incomplete_ids(all);
    const CellEvidence e = without_ids(all, v.gates.incomplete_ids);
    if (e.arm_a_prime)
        v.serial_check = compare_arms(e.arm_a, *e.arm_a_prime, "A", "A'", e.logit_drift_eps);
    v.ac = union_over_passes(e.arm_a, e.arm_c, "A", "C", e.logit_drift_eps);
    if (e.arm_b) {
        v.ab = compare_arms(e.arm_a, *e.arm_b, "A", "B", e.logit_drift_eps);
        v.bc = union_over_passes(*e.arm_b, e.arm_c, "B", "C", e.logit_drift_eps);
    }

    v.dispatch_n = e.dispatch_n;
    v.evidence = e.evidence;
    v.identity_problems = e.identity_problems;
    v.gates.overlap.total_slots = e.reported_total_slots;
    v.gates.overlap.server = merge_pass_evidence(e.server_c_passes);
    v.gates.arm_b.server = e.server_b;
    if (v.gates.arm_b.server) v.gates.arm_b.server->busy_samples.clear();
    if (e.arm_b) {
        v.gates.arm_b.unpinned = !e.arm_b_pinned;
        // A request the server ran on another slot than pinned: the pin was not honoured. A
        // server that does not say which slot it used is not contradicted.
        for (const auto& [id, b] : *e.arm_b)
            if (b.pinned_slot && b.id_slot && *b.id_slot != *b.pinned_slot)
                ++v.gates.arm_b.pins_ignored;
    }
    OverlapInputs overlap{e.dispatch_n, e.reported_total_slots, v.gates.arm_b.server, {}, {},
                          e.evidence};
    for (std::size_t t = 0; t < e.arm_c.size(); ++t) {
        const ServerOverlapEvidence* server =
            t < e.server_c_passes.size() ? &e.server_c_passes[t] : nullptr;
        v.gates.cobatch_coverage.per_pass.push_back(pass_coverage(
            e.arm_c[t], static_cast<int>(t + 1), server ? server : &kNoServerEvidence));
        const std::size_t depth = v.gates.cobatch_coverage.per_pass.back().client_depth;
        v.gates.overlap.per_pass_client_depth.push_back(depth);
        v.gates.overlap.client_max_depth = std::max(v.gates.overlap.client_max_depth, depth);
        overlap.client_depths.push_back(depth);
        overlap.pass_servers.push_back(server);
    }
    OverlapFinding finding = evaluate_overlap(overlap);
    v.gates.arm_b.serial = finding.arm_b_serial;
    v.gates.overlap.per_pass = std::move(finding.per_pass);
    v.gates.overlap.problems = std::move(finding.problems);
    v.gates.overlap.ok = v.gates.overlap.problems.empty();

    find_missing_evidence(e.arm_a, e.arm_a, "A", e.logprobs_requested, v.gates.missing_evidence);
    if (e.arm_b)
        find_missing_evidence(e.arm_a, *e.arm_b, "B", e.logprobs_requested,
                              v.gates.missing_evidence);
    for (std::size_t t = 0; t < e.arm_c.size(); ++t)
        find_missing_evidence(e.arm_a, e.arm_c[t], "C" + std::to_string(t + 1),
                              e.logprobs_requested, v.gates.missing_evidence);

    check_greedy(e, v);
    mark_contamination(e, v.ac);

    v.gates.completion_floor.arms.push_back(completion_census(e.arm_a, "A"));
    for (std::size_t t = 0; t < e.arm_c.size(); ++t)
        v.gates.completion_floor.arms.push_back(
            completion_census(e.arm_c[t], "C" + std::to_string(t + 1)));
    if (e.arm_b) v.gates.completion_floor.arm_b = completion_census(*e.arm_b, "B");
    v.gates.completion_floor.ok = !e.arm_c.empty();
    for (const auto& census : v.gates.completion_floor.arms)
        v.gates.completion_floor.ok &= census.meets(kCompletionFloor);

    v.gates.cobatch_coverage.checked = !e.arm_c.empty();
    v.gates.cobatch_coverage.ok = v.gates.cobatch_coverage.checked;
    for (const auto& coverage : v.gates.cobatch_coverage.per_pass)
        v.gates.cobatch_coverage.ok &= coverage.ok;

    v.sensitivity = sensitivity_bounds(count_trials(e, v), e.confidence);
    v.length = length_scope(e);

    if (e.arm_b)
        for (const auto& pass : e.arm_c)
            for (const auto& [id, c] : pass) {
                const auto b = e.arm_b->find(id);
                if (b == e.arm_b->end() || !b->second.id_slot || c.id_slot != b->second.id_slot)
                    continue;
                ++v.same_slot_compared;
                if (!same_invariants(b->second, c)) ++v.same_slot_divergent;
            }

    // AC-divergent ids that A scored but a concurrent pass failed to complete: the user would see
    // those requests fail, which is not the same finding as a changed answer.
    for (const auto& id : v.ac.divergent_ids) {
        const auto a = e.arm_a.find(id);
        if (a == e.arm_a.end() || !a->second.ok()) continue;
        for (const auto& pass : e.arm_c) {
            const auto c = pass.find(id);
            if (c != pass.end() && is_transport_failure(c->second.failure_mode)) {
                ++v.concurrency_failures[std::string(c->second.failure_mode.word())];
                ++v.n_failed_under_concurrency;
                break;
            }
        }
    }
    record_pair_checks(v);
    return v;
}

std::string nats(double value) {
    return format_fixed(value, 3) + " nats";
}

std::string where(const std::string& id, const IdForensics& f) {
    const bool chars = f.at.basis == DivergenceBasis::Char;
    return id + " (pass " + std::to_string(f.pass) + ", " + (chars ? "char " : "token ") +
           count(f.at.index) + ")";
}

// What the forensics say about the ids that moved: contamination and decisive changes by name,
// near-ties and unclassified ones summarised.
Reasons forensics_reasons(const UnionReport& ac) {
    constexpr std::size_t kNamed = 8;
    Reasons r;
    std::vector<std::string> contaminated, decisive, near_tie, unknown;
    for (const auto& [id, f] : ac.forensics) {
        if (f.contamination) {
            if (contaminated.size() < kNamed)
                r.push_back(
                    "contamination_suspected (privacy-relevant: another request's text "
                    "leaked in): " +
                    where(id, f) + " generated \"" + f.contamination->ngram +
                    "\" from co-batched neighbour " + f.contamination->neighbour);
            contaminated.push_back(id);
        } else if (f.kind == DivergenceKind::Decisive) {
            if (decisive.size() < kNamed)
                r.push_back("decisive divergence: " + where(id, f) + ", A's top-1/top-2 margin " +
                            nats(*f.a_margin) + " (near-tie below " + nats(kNearTieMargin) + ")");
            decisive.push_back(id);
        } else if (f.kind == DivergenceKind::NearTie) {
            near_tie.push_back(id);
        } else {
            unknown.push_back(id);
        }
    }
    if (contaminated.size() > kNamed)
        r.push_back(count(contaminated.size() - kNamed) + " more id(s) suspected of contamination");
    if (decisive.size() > kNamed)
        r.push_back(count(decisive.size() - kNamed) + " more decisive divergence(s)");
    if (!near_tie.empty())
        r.push_back(count(near_tie.size()) + " near-tie divergence(s) (A's top-1/top-2 margin < " +
                    nats(kNearTieMargin) +
                    ", a rounding flip is plausible): " + join_ids(near_tie));
    if (!unknown.empty())
        r.push_back(count(unknown.size()) +
                    " divergence(s) without a margin (no top-2 logprobs at that position): " +
                    join_ids(unknown));
    return r;
}

std::string failures_under_concurrency(const Verdict& v) {
    std::string counts;
    for (const auto& [mode, n] : v.concurrency_failures)
        counts += (counts.empty() ? "" : ", ") + mode + " x" + std::to_string(n);
    return counts;
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
        if (v.n_failed_under_concurrency > 0) {
            const std::size_t changed = v.ac.divergent_ids.size() - v.n_failed_under_concurrency;
            r.push_back(count(v.n_failed_under_concurrency) + " id(s) failed under concurrency (" +
                        failures_under_concurrency(v) + ") after succeeding serially; " +
                        count(changed) + " id(s) changed their answer");
        }
        if (v.ab && !v.ab->clean())
            r.push_back("A vs B also diverged on " + count(v.ab->divergent_ids.size()) +
                        " id(s): slot allocation alone changes outputs");
        else if (v.ab && v.gates.arm_b.unpinned)
            r.push_back(
                "arm B named no slot (this server kind has none): it is no "
                "slot-allocation control, so co-batching and slot allocation are not told "
                "apart");
        else if (v.ab && v.gates.arm_b.pins_ignored > 0)
            r.push_back(
                "arm B is no slot-allocation control: " + count(v.gates.arm_b.pins_ignored) +
                " of its requests ran on another slot than the one pinned (the server "
                "ignored id_slot), so co-batching and slot allocation are not told apart");
        for (auto& line : forensics_reasons(v.ac)) r.push_back(std::move(line));
        r.push_back(verdict_line(v));
        return r;
    },
    [](const Verdict& v) {
        return Reasons{"A vs C: no invariant divergence over " + count(v.ac.per_pass.size()) +
                       " pass(es), " + count(v.ac.n_comparisons) + " comparisons"};
    },
};

// Rule 3: an arm bi-run could not finish says nothing either way (never RED).
const VerdictRule kIncomplete{
    "incomplete",
    [](const Verdict& v) { return !v.gates.incomplete_ids.empty(); },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        return Reasons{
            "incomplete run: " + count(v.gates.incomplete_ids.size()) +
                " item(s) never sent or cut off by bi-run (arm deadline or interrupt): " +
                join_ids(v.gates.incomplete_ids),
            verdict_line(v)};
    },
    nullptr,
};

// Rule 3b: answers from another model than the one launched are no verdict on this one.
const VerdictRule kOtherModel{
    "server_identity",
    [](const Verdict& v) { return !v.identity_problems.empty(); },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        Reasons r;
        for (const auto& problem : v.identity_problems)
            r.push_back("another model than the one launched: " + problem);
        r.push_back(verdict_line(v));
        return r;
    },
    nullptr,
};

// Rule 4: without proof that N requests really shared a batch in every pass, agreement proves
// nothing; every evidence source the server offers must agree.
const VerdictRule kNoOverlap{
    "overlap",
    [](const Verdict& v) { return !v.gates.overlap.ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        Reasons r;
        for (const auto& problem : v.gates.overlap.problems)
            r.push_back("no real overlap at N = " + std::to_string(v.dispatch_n) + ": " + problem);
        r.push_back(verdict_line(v));
        return r;
    },
    [](const Verdict& v) {
        const KindEvidence& e = v.evidence;
        std::string line = "overlap proven at N = " + std::to_string(v.dispatch_n) +
                           " in every pass: client depth " +
                           count(v.gates.overlap.client_max_depth);
        if (e.has_slots())
            line += ", server peak busy slots " +
                    std::to_string(v.gates.overlap.server.peak_busy_slots);
        if (e.has_gauge())
            line += ", peak " + short_metric(e.running_gauge) + " " +
                    std::to_string(v.gates.overlap.server.peak_requests_processing);
        line += e.capacity_field.empty()
                    ? ", capacity as launched"
                    : ", " + e.capacity_field + " " +
                          std::to_string(v.gates.overlap.total_slots.value_or(0));
        return Reasons{line};
    },
};

// Rule 5: evidence that was requested, or that A has, must be in every compared trial.
const VerdictRule kMissingEvidence{
    "missing_evidence",
    [](const Verdict& v) { return !v.gates.missing_evidence.empty(); },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        std::map<std::string, std::vector<std::string>> by_field;
        for (const auto& m : v.gates.missing_evidence)
            by_field[m.field + " in " + m.arm].push_back(m.test_id);
        Reasons r;
        for (const auto& [where, ids] : by_field)
            r.push_back("missing evidence: no " + where + " for " + count(ids.size()) +
                        " id(s): " + join_ids(ids));
        r.push_back(verdict_line(v));
        return r;
    },
    nullptr,
};

// Rule 5b: with temperature 0 and top_k 1 every chosen token must be the server's top-1; a
// server that samples anyway is not running the decoding this cell is about.
const VerdictRule kGreedy{
    "greedy",
    [](const Verdict& v) { return v.gates.greedy.first_violation.has_value(); },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        const GreedyViolation& g = *v.gates.greedy.first_violation;
        return Reasons{"not greedy decoding: in arm " + g.arm + ", id " + g.test_id +
                           " chose a token of logprob " + format_fixed(g.chosen_logprob, 4) +
                           " at position " + count(g.position) + " while the server listed " +
                           format_fixed(g.top_logprob, 4) + " as most likely (" +
                           count(v.gates.greedy.n_not_greedy) +
                           " trial(s) affected); temperature 0 / top_k 1 were not honoured",
                       verdict_line(v)};
    },
    [](const Verdict& v) {
        Reasons r;
        if (v.gates.greedy.checked)
            r.push_back("greedy decoding confirmed: every chosen token was the server's top-1");
        return r;
    },
};

// Rule 6: too few genuinely scored completions cannot carry a verdict.
const VerdictRule kCompletionFloorRule{
    "completion_floor",
    [](const Verdict& v) { return !v.gates.completion_floor.ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        Reasons r;
        for (const auto& census : v.gates.completion_floor.arms)
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

// Rule 7: each pass must co-batch most of its ids, with certain attribution.
const VerdictRule kCoverage{
    "cobatch_coverage",
    [](const Verdict& v) { return !v.gates.cobatch_coverage.ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        Reasons r;
        for (const auto& c : v.gates.cobatch_coverage.per_pass) {
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

// Rule 8: A and C agree but B does not: the control moved, so the cell is only AMBER.
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
        return r;
    },
};

// Rule 9: scores held but the generation itself moved.
const VerdictRule kGenerationDrift{
    "generation_drift",
    [](const Verdict& v) { return drift_anomaly(v.ac).has_value(); },
    Status::GreenWithCaveat,
    [](Verdict& v) { v.anomaly = drift_anomaly(v.ac); },
    [](const Verdict& v) {
        Reasons r{"generation drift under co-batching: " + count(v.ac.token_only_ids.size()) +
                  " id(s) changed text or tokens, " + count(v.ac.logprob_drift_ids.size()) +
                  " id(s) changed chosen-token logprobs, invariant fields unchanged"};
        for (auto& line : forensics_reasons(v.ac)) r.push_back(std::move(line));
        r.push_back(verdict_line(v));
        return r;
    },
    nullptr,
};

}  // namespace

RateBound rate_bound(std::size_t n, std::size_t divergent, double confidence, bool cell_diverged) {
    RateBound b;
    b.n = n;
    b.divergent = divergent;
    if (n == 0) return b;
    if (!cell_diverged) {
        b.clopper_pearson_upper = zero_divergence_upper(n, confidence);
        b.rule_of_three_upper = rule_of_three(n);
        return b;
    }
    const RateInterval interval = clopper_pearson_interval(divergent, n, confidence);
    b.observed_rate = static_cast<double>(divergent) / static_cast<double>(n);
    b.interval_lower = interval.lower;
    b.interval_upper = interval.upper;
    return b;
}

Sensitivity sensitivity_bounds(const SensitivityCounts& counts, double confidence) {
    Sensitivity s;
    s.n_hot_trials = counts.n_hot_trials;
    s.divergences_seen = counts.divergent_ids;
    s.confidence = confidence;
    const bool diverged = counts.divergent_ids > 0;
    s.per_trial = rate_bound(counts.trials, counts.divergent_trials, confidence, diverged);
    s.per_prompt = rate_bound(counts.prompts, counts.divergent_ids, confidence, diverged);
    if (diverged)
        for (std::size_t t = 0; t < counts.per_pass.size(); ++t)
            s.per_pass.push_back({static_cast<int>(t + 1),
                                  rate_bound(counts.per_pass[t].first, counts.per_pass[t].second,
                                             confidence, diverged)});
    if (!diverged && counts.trials > 0) {
        s.rule_of_three_upper = rule_of_three(counts.trials);
        s.clopper_pearson_upper_95 = zero_divergence_upper(counts.trials, 0.95);
    }
    s.distinct_compositions = counts.distinct_compositions;
    return s;
}

SensitivityCounts recorded_counts(const Sensitivity& s) {
    SensitivityCounts counts;
    counts.n_hot_trials = s.n_hot_trials;
    counts.divergent_ids = s.divergences_seen;
    counts.trials = s.per_trial.n;
    counts.divergent_trials = s.per_trial.divergent;
    counts.prompts = s.per_prompt.n;
    for (const auto& pass : s.per_pass)
        counts.per_pass.emplace_back(pass.bound.n, pass.bound.divergent);
    counts.distinct_compositions = s.distinct_compositions;
    return counts;
}

const std::vector<VerdictRule>& verdict_rules() {
    static const std::vector<VerdictRule> kRules{
        kSerialSelfCheck, kCoBatchingDivergence, kIncomplete,     kOtherModel,
        kNoOverlap,       kMissingEvidence,      kGreedy,         kCompletionFloorRule,
        kCoverage,        kArmBDisagrees,        kGenerationDrift};
    return kRules;
}

void apply_rules(Verdict& v, bool passed_reasons) {
    auto& reasons = v.decision_reasons;
    for (const auto& rule : verdict_rules()) {
        if (rule.fires(v)) {
            v.status = rule.status;
            if (rule.classify) rule.classify(v);
            v.rule = {std::string(rule.name), reasons.size()};
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
    return v;
}

ServerOverlapEvidence merge_pass_evidence(const std::vector<ServerOverlapEvidence>& passes) {
    ServerOverlapEvidence merged;
    merged.slots_available = !passes.empty();
    merged.metrics_available = !passes.empty();
    double mean_sum = 0.0;
    std::size_t n_means = 0;
    double busy_sum = 0.0;
    std::size_t n_busy = 0;
    for (const auto& pass : passes) {
        merged.slots_available = merged.slots_available && pass.slots_available;
        merged.metrics_available = merged.metrics_available && pass.metrics_available;
        if (pass.mean_busy_slots) {
            busy_sum += *pass.mean_busy_slots;
            ++n_busy;
        }
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
    if (n_busy > 0) merged.mean_busy_slots = busy_sum / static_cast<double>(n_busy);
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
