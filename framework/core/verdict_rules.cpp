// The rules of docs/design.md §5.1's precedence table: when each fires, the status and class it
// gives, and the reasons it writes when it fires and when it passes.
#include "verdict_rules.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <sstream>
#include <utility>

#include "text.hpp"
#include "verdict.hpp"

namespace bi::core {

namespace {

constexpr std::array<std::pair<RuleId, std::string_view>, kRuleCount> kRuleNames{{
    {RuleId::ColdCache, "cold_cache"},
    {RuleId::SerialSelfCheck, "serial_self_check"},
    {RuleId::AcInvariantDivergence, "ac_invariant_divergence"},
    {RuleId::Incomplete, "incomplete"},
    {RuleId::ServerIdentity, "server_identity"},
    {RuleId::Overlap, "overlap"},
    {RuleId::Lockstep, "lockstep"},
    {RuleId::MissingEvidence, "missing_evidence"},
    {RuleId::Greedy, "greedy"},
    {RuleId::CompletionFloor, "completion_floor"},
    {RuleId::CobatchCoverage, "cobatch_coverage"},
    {RuleId::AbInvariantDivergence, "ab_invariant_divergence"},
    {RuleId::GenerationDrift, "generation_drift"},
    {RuleId::Drafting, "drafting"},
    {RuleId::Determinism, "determinism"},
    {RuleId::SerialGivenUp, "serial_given_up"},
}};

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

std::optional<Anomaly> drift_anomaly(const UnionReport& ac) {
    const bool tokens = !ac.token_only_ids.empty();
    const bool logits = !ac.logprob_drift_ids.empty();
    if (tokens && logits) return Anomaly::TokenAndLogitDrift;
    if (tokens) return Anomaly::TokenOnly;
    if (logits) return Anomaly::LogitDrift;
    return std::nullopt;
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

// How many of a gate's findings each arm had, in the order they were found: "A' x3, C2 x1".
// `arm_of` gives a finding's arm.
template <typename Finding>
std::string count_by_arm(const std::vector<Finding>& findings,
                         std::string (*arm_of)(const Finding&)) {
    std::map<std::string, std::size_t> by_arm;
    std::vector<std::string> order;
    for (const auto& finding : findings)
        if (by_arm[arm_of(finding)]++ == 0) order.push_back(arm_of(finding));
    std::string text;
    for (const auto& arm : order)
        text += (text.empty() ? "" : ", ") + arm + " x" + std::to_string(by_arm[arm]);
    return text;
}

// What the hits of the cold-cache gate were, by arm.
std::string hits_by_arm(const ColdCacheGate& g) {
    return count_by_arm<CacheHit>(g.hits, [](const CacheHit& hit) { return hit.arm; });
}

// Rule 0: every arm must have run cold. An answer the server served (in part) from its prompt
// cache was computed along another path than its arm's, so no comparison of it says anything
// about batching (nor A vs A' about the server).
const VerdictRule kColdCache{
    RuleId::ColdCache,
    [](const Verdict& v) { return v.gates.cold_cache && !v.gates.cold_cache->ok(); },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        const ColdCacheGate& g = *v.gates.cold_cache;
        std::vector<std::string> ids;
        for (const auto& hit : g.hits)
            if (std::find(ids.begin(), ids.end(), hit.test_id) == ids.end())
                ids.push_back(hit.test_id);
        const CacheHit& first = g.hits.front();
        return Reasons{"prompt cache hit: " + count(g.hits.size()) + " scored answer(s) (" +
                           hits_by_arm(g) + ") say they were served in part from the cache (" +
                           g.witness + "; the first, " + first.test_id + " in " + first.arm + ": " +
                           std::to_string(first.cached) +
                           " cached prompt tokens), so they prove nothing about batching: " +
                           count(ids.size()) + " id(s): " + join_ids(ids),
                       verdict_line(v)};
    },
    [](const Verdict& v) {
        if (!v.gates.cold_cache) return Reasons{};
        const ColdCacheGate& g = *v.gates.cold_cache;
        if (g.witness.empty())
            return Reasons{
                "prompt cache: this server kind states no cache witness, so a cold cache is "
                "assumed, not proven"};
        std::string line = "cold cache: " + std::to_string(g.witnessed) +
                           " scored answer(s) computed their whole prompt (" + g.witness + ")";
        if (g.unwitnessed > 0)
            line += "; " + std::to_string(g.unwitnessed) + " did not state the witness";
        return Reasons{line};
    },
};

// What each arm drafted: "A 0, A' 0, B 0, C1 112, C2 96" tokens.
std::string drafted_by_arm(const DraftingGate& g) {
    std::string text;
    for (const auto& arm : g.arms)
        text += (text.empty() ? "" : ", ") + arm.arm + " " + std::to_string(arm.drafted_tokens);
    return text;
}

// The drafting gate's mismatches, by arm.
std::string mismatches_by_arm(const DraftingGate& g) {
    return count_by_arm<DraftMismatch>(g.mismatches, [](const DraftMismatch& m) { return m.arm; });
}

// Rule 13, asked second: every arm must have drafted alike. A server that drafts tokens verifies
// them in batches of its own choosing, so an answer that drafted otherwise than A's was computed
// along another path: comparing it with A's says nothing about batching alone.
const VerdictRule kDrafting{
    RuleId::Drafting,
    [](const Verdict& v) { return v.gates.drafting && !v.gates.drafting->ok(); },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        const DraftingGate& g = *v.gates.drafting;
        std::vector<std::string> ids;
        for (const auto& m : g.mismatches)
            if (std::find(ids.begin(), ids.end(), m.test_id) == ids.end()) ids.push_back(m.test_id);
        const DraftMismatch& first = g.mismatches.front();
        return Reasons{"speculative decoding differed between arms: " + count(g.mismatches.size()) +
                           " answer(s) (" + mismatches_by_arm(g) +
                           ") drafted otherwise than A's (" + g.fields + "; the first, " +
                           first.test_id + " in " + first.arm + ": " +
                           std::to_string(first.drafted) + " drafted tokens against A's " +
                           std::to_string(first.drafted_a) +
                           "), so they were computed along other paths and are not comparable: " +
                           count(ids.size()) + " id(s): " + join_ids(ids),
                       "drafted tokens by arm: " + drafted_by_arm(g), verdict_line(v)};
    },
    [](const Verdict& v) {
        if (!v.gates.drafting || !v.gates.drafting->drafted()) return Reasons{};
        const DraftingGate& g = *v.gates.drafting;
        const std::string launched =
            g.launch_flag.empty() ? "" : " (launched with " + g.launch_flag + ")";
        if (g.fields.empty())
            return Reasons{"drafting: the server decodes speculatively" + launched +
                           ", and this server kind states no drafted tokens per answer, so "
                           "whether the arms drafted alike is not checked"};
        return Reasons{"drafting: the server decodes speculatively" + launched +
                       ", and every arm drafted alike (" + g.fields + ": " + drafted_by_arm(g) +
                       " tokens), so the verdict is for drafted decoding"};
    },
};

// "the 1-slot server reports enable_deterministic_inference = false": what the servers said.
std::string mode_reports(const DeterminismGate& g) {
    std::string text;
    for (const auto& report : g.reports)
        text += (text.empty() ? "" : "; ") + std::string("the ") + report.server +
                " server reports " + report.detail;
    return text;
}

// Rule 14, asked third: a side asked to run with the server's determinism mode on must have it
// in effect. A server that reports the mode off (or does not say, where it can) answered without
// it, so its cell says nothing about the mode.
const VerdictRule kDeterminism{
    RuleId::Determinism,
    [](const Verdict& v) { return v.gates.determinism && !v.gates.determinism->ok(); },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        const DeterminismGate& g = *v.gates.determinism;
        return Reasons{"determinism mode not in effect: asked on (" + g.how + "), but " +
                           mode_reports(g) + ", so this cell says nothing about the mode",
                       verdict_line(v)};
    },
    [](const Verdict& v) {
        if (!v.gates.determinism) return Reasons{};
        const DeterminismGate& g = *v.gates.determinism;
        if (!g.on) return Reasons{"determinism mode off (" + g.how + " not set)"};
        if (g.confirmed())
            return Reasons{"determinism mode on (" + g.how + "), confirmed: " + mode_reports(g)};
        return Reasons{"determinism mode on (" + g.how +
                       "): claimed, not confirmed (the server cannot report it)"};
    },
};

// A census's failures, one line each: "A: <id>: http_error: POST /completion: HTTP 400: ...".
Reasons failure_lines(const CompletionCensus& census) {
    Reasons r;
    for (const auto& f : census.failures)
        r.push_back(census.arm + ": " + f.test_id + ": " + f.failure_mode +
                    (f.error.empty() ? "" : ": " + f.error));
    const std::size_t failed = census.n - census.n_ok;
    if (failed > census.failures.size())
        r.push_back(census.arm + ": " + count(failed - census.failures.size()) +
                    " more failed request(s)");
    return r;
}

// Rule 15, asked fourth: a serial arm the server answered, but with more failures than the
// completion floor allows, was given up and nothing ran after it: no verdict on batching, and a
// cert that says why, failure by failure.
const VerdictRule kSerialGivenUp{
    RuleId::SerialGivenUp,
    [](const Verdict& v) { return v.gates.completion_floor.given_up.has_value(); },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        const GivenUpArm& g = *v.gates.completion_floor.given_up;
        Reasons r{"completion floor out of reach: arm " + g.arm + " given up: " + g.reason +
                  "; no other arm ran, so nothing batched was compared"};
        for (auto& line : failure_lines(g.census)) r.push_back(std::move(line));
        r.push_back(verdict_line(v));
        return r;
    },
    nullptr,
};

// Rule 1: the server must reproduce itself serially, or nothing batched can be certified.
const VerdictRule kSerialSelfCheck{
    RuleId::SerialSelfCheck,
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
    RuleId::AcInvariantDivergence,
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
        if (v.gates.determinism && v.gates.determinism->on)
            r.push_back("the server's determinism mode was on (" + v.gates.determinism->how +
                        ") and batching still changed answers");
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
    RuleId::Incomplete,
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

// Rule 4: answers from another model than the one launched are no verdict on this one.
const VerdictRule kOtherModel{
    RuleId::ServerIdentity,
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

// A gate's problems, each after `what` and N, then the verdict line.
Reasons problem_reasons(const Verdict& v, const std::string& what,
                        const std::vector<std::string>& problems) {
    Reasons r;
    for (const auto& problem : problems)
        r.push_back(what + std::to_string(v.dispatch_n) + ": " + problem);
    r.push_back(verdict_line(v));
    return r;
}

// Rule 5: without proof that N requests really shared a batch in every pass, agreement proves
// nothing; every evidence source the server offers must agree.
const VerdictRule kNoOverlap{
    RuleId::Overlap,
    [](const Verdict& v) { return !v.gates.overlap.ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        return problem_reasons(v, "no real overlap at N = ", v.gates.overlap.problems);
    },
    [](const Verdict& v) {
        const KindEvidence& e = v.kind_signals;
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

// How the passes' requests arrived, when the cert records it: "arrivals: passes 1, 3 staggered
// (31, 30 prefills inside another request's decode), 2, 4 sent together"; a staggered pass that
// showed none is named, and its trials are not counted (sensitivity, planned passes).
std::string arrivals_line(const LockstepGate& g) {
    std::vector<std::string> staggered, prefills, together, missed;
    for (const auto& pass : g.per_pass) {
        if (!pass.schedule) continue;
        const std::string number = std::to_string(pass.pass);
        if (*pass.schedule != Arrivals::Staggered) {
            together.push_back(number);
        } else if (!pass.arrivals_achieved()) {
            missed.push_back(number);
        } else {
            staggered.push_back(number);
            prefills.push_back(std::to_string(pass.streams.prefills_in_decode()));
        }
    }
    std::vector<std::string> parts;
    if (!staggered.empty())
        parts.push_back((staggered.size() == 1 ? "pass " : "passes ") + join(staggered, ", ") +
                        " staggered (" + join(prefills, ", ") +
                        " prefill(s) inside another request's decode)");
    if (!together.empty())
        parts.push_back((together.size() == 1 ? "pass " : "passes ") + join(together, ", ") +
                        " sent together");
    if (!missed.empty())
        parts.push_back((missed.size() == 1 ? "pass " : "passes ") + join(missed, ", ") +
                        " meant to be staggered, but no prefill came inside another request's "
                        "decode: not counted in the bounds");
    return parts.empty() ? std::string() : "arrivals: " + join(parts, "; ");
}

// Rule 6: what the client saw must agree: every pass's token streams in lockstep at N. A server
// whose own signals say N while its streams show one-at-a-time or time-sliced decoding is named
// with both; a kind without signals is judged by its streams alone.
const VerdictRule kLockstep{
    RuleId::Lockstep,
    [](const Verdict& v) { return v.gates.lockstep.checked && !v.gates.lockstep.ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        return problem_reasons(v, "no lockstep at N = ", v.gates.lockstep.problems);
    },
    [](const Verdict& v) {
        const LockstepGate& g = v.gates.lockstep;
        if (!g.checked) return Reasons{};
        double least = 1.0;
        int widest = 0;
        for (const auto& pass : g.per_pass) {
            least = std::min(least, pass.streams.batched_margin());
            widest = std::max(widest, pass.streams.peak);
        }
        Reasons r{"token streams in lockstep in every pass (margin at least " +
                  format_fixed(least, 2) + "), " + std::to_string(widest) +
                  " wide at most: batching decided by the " + std::string(name(g.decided_by))};
        if (auto line = arrivals_line(g); !line.empty()) r.push_back(std::move(line));
        return r;
    },
};

// Rule 7: evidence that was requested, or that A has, must be in every compared trial.
const VerdictRule kMissingEvidence{
    RuleId::MissingEvidence,
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

// Rule 8: with temperature 0 and top_k 1 every chosen token must be the server's top-1; a
// server that samples anyway is not running the decoding this cell is about.
const VerdictRule kGreedy{
    RuleId::Greedy,
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

// Rule 9: too few genuinely scored completions cannot carry a verdict.
const VerdictRule kCompletionFloorRule{
    RuleId::CompletionFloor,
    [](const Verdict& v) { return !v.gates.completion_floor.ok; },
    Status::GreenUnverified,
    nullptr,
    [](const Verdict& v) {
        Reasons r;
        for (const auto& census : v.gates.completion_floor.arms)
            if (!census.meets(kCompletionFloor)) {
                r.push_back("completion floor missed in " + census.arm + ": " + count(census.n_ok) +
                            "/" + count(census.n) + " ok (" + percent(census.ratio()) + ", need " +
                            percent(kCompletionFloor) + ")");
                for (auto& line : failure_lines(census)) r.push_back(std::move(line));
            }
        if (v.ac.per_pass.empty()) r.push_back("no concurrent pass ran");
        r.push_back(verdict_line(v));
        return r;
    },
    [](const Verdict& v) {
        Reasons r{"completion floor met in A and every C pass"};
        for (const auto& census : v.gates.completion_floor.arms)
            for (auto& line : failure_lines(census)) r.push_back(std::move(line));
        return r;
    },
};

// Rule 10: each pass must co-batch most of its ids, with certain attribution.
const VerdictRule kCoverage{
    RuleId::CobatchCoverage,
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

// Rule 11: A and C agree but B does not: the control moved, so the cell is only AMBER.
const VerdictRule kArmBDisagrees{
    RuleId::AbInvariantDivergence,
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

// Rule 12: scores held but the generation itself moved.
const VerdictRule kGenerationDrift{
    RuleId::GenerationDrift,
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

std::string_view name(RuleId rule) {
    for (const auto& [id, text] : kRuleNames)
        if (id == rule) return text;
    return "?";  // unreachable while kRuleNames lists every rule
}

std::optional<RuleId> rule_id(std::string_view name) {
    for (const auto& [id, text] : kRuleNames)
        if (text == name) return id;
    return std::nullopt;
}

const std::vector<VerdictRule>& verdict_rules() {
    static const std::vector<VerdictRule> kRules{kColdCache,           kDrafting,
                                                 kDeterminism,         kSerialGivenUp,
                                                 kSerialSelfCheck,     kCoBatchingDivergence,
                                                 kIncomplete,          kOtherModel,
                                                 kNoOverlap,           kLockstep,
                                                 kMissingEvidence,     kGreedy,
                                                 kCompletionFloorRule, kCoverage,
                                                 kArmBDisagrees,       kGenerationDrift};
    return kRules;
}

}  // namespace bi::core
