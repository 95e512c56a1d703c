// The verdict: docs/design.md §5.1's precedence over arms A, A', B and the T passes of C.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare.hpp"
#include "gates.hpp"
#include "overlap.hpp"
#include "sensitivity.hpp"
#include "server_kind.hpp"
#include "trial.hpp"
#include "union.hpp"
#include "verdict_kinds.hpp"
#include "verdict_rules.hpp"

namespace bi::core {

inline constexpr std::string_view kGate = "abc_union";
// decide_verdict's closing line when no rule fires.
inline constexpr std::string_view kGreenReason =
    "verdict green: no divergence detected in this cell (not a proof)";

struct CellEvidence {
    ArmResults arm_a;
    std::optional<ArmResults> arm_a_prime;  // the serial self-check, when it ran
    std::optional<ArmResults> arm_b;
    std::vector<ArmResults> arm_c;                       // one map per concurrent pass
    std::vector<ServerOverlapEvidence> server_c_passes;  // the server's evidence, one per pass
    std::optional<ServerOverlapEvidence> server_b;
    std::int64_t dispatch_n = 0;                       // N: slots asked for, requests at once
    std::optional<std::int64_t> reported_total_slots;  // the N-slot server's /props total_slots
    bool logprobs_requested = false;                   // --logprobs K > 0
    double confidence = kDefaultConfidence;            // of the sensitivity bounds
    std::optional<std::int64_t> n_predict;             // the generation limit, for the length scope
    // What each item sent (system and prompt), by test_id: the contamination check looks for a
    // neighbour's words in a divergent completion. Empty: the check is skipped.
    std::map<std::string, std::string, std::less<>> prompts;
    double logit_drift_eps = 0.0;  // logprob-only deltas below it are not drift (compare_arms)
    KindEvidence evidence = llama_server_evidence();  // the server kind's co-batching signals
    // The servers named another model than the one launched (model_identity_problems).
    std::vector<std::string> identity_problems;
    bool arm_b_pinned = true;  // arm B named a slot in each request (TrialRecord::pinned_slot)
    // The arms streamed (TrialRecord::token_ms): the lockstep gate judges C's streams.
    bool streamed = false;
    // The kind's prompt-cache witness: set, the cold-cache gate checks every scored answer of
    // A, A', B and C (its TrialRecord::prompt_cached / prompt_evaluated); nullopt: not checked.
    std::optional<CacheWitness> cache_witness;
    // Each C pass's schedule (Together or Staggered), by pass; absent passes were sent together.
    std::vector<Arrivals> c_schedules;
    // The kind's draft fields: set, the drafting gate compares what every answer of A', B and C
    // drafted with A's answer (TrialRecord::drafted); nullopt: not checked. `draft_launch_flag`:
    // the draft-model flag the servers were launched with, as given; "": none.
    std::optional<std::vector<std::string>> draft_fields;
    std::string draft_launch_flag;
    // The side's determinism mode and what the servers said of it (CertGates::determinism).
    std::optional<DeterminismGate> determinism;
    // A serial arm given up on its completion floor: the cell ran nothing after it.
    std::optional<GivenUpArm> given_up;
};

struct Verdict {
    Status status = Status::GreenUnverified;
    KindEvidence kind_signals = llama_server_evidence();  // the signals judged (names reasons)
    std::vector<std::string> identity_problems;           // the server ran another model
    FiredRule rule;                                       // set by apply_rules
    std::optional<DivergenceClass> divergence_class;      // set when something invariant diverged
    std::optional<Anomaly> anomaly;                       // set only for green_with_caveat
    std::optional<PairReport> serial_check;               // A vs A'
    UnionReport ac;
    std::optional<PairReport> ab;
    std::optional<UnionReport> bc;

    // Every gate with its evidence, as the cert carries it: overlap (client depth per pass, the
    // merged server evidence, its problems in order), the greedy check (the first trial in arms
    // A, A', B, C1.. order, ids sorted, whose chosen token was not the top-1), the completion
    // floor, co-batch coverage, arm B (its serial check and server evidence) and A vs A'.
    CertGates gates;
    std::int64_t dispatch_n = 0;
    // AC-divergent ids whose concurrent request failed (A scored them), by failure mode.
    std::map<std::string, std::size_t> concurrency_failures;
    std::size_t n_failed_under_concurrency = 0;
    // C trials that ran on the slot their id used in arm B (B pins slots round-robin), and how
    // many of those still differ from B: none means the slot, not batching, explains a RED.
    std::size_t same_slot_compared = 0;
    std::size_t same_slot_divergent = 0;

    Sensitivity sensitivity;
    LengthScope length;
    std::vector<std::string> decision_reasons;
};

// Evaluates every gate over the evidence (so the cert carries all of it), then applies the
// rules of verdict_rules() in order: the first that fires decides the status.
Verdict decide_verdict(const CellEvidence& evidence);

// The precedence over gathered evidence: the first rule of verdict_rules() that fires sets the
// status, its classification and `rule`, and appends its lines to decision_reasons; none firing
// gives green and kGreenReason. With `passed_reasons`, the rules before it first append what
// they write when they pass (decide_verdict); without, only the deciding lines are written (the
// cert consistency replay, which has no trials to word those lines from).
void apply_rules(Verdict& gathered, bool passed_reasons = true);

// "green", "failed (co_batching)", "green_with_caveat (token_only)" ...
std::string verdict_summary(Status status, const std::optional<DivergenceClass>& divergence_class,
                            const std::optional<Anomaly>& anomaly);
std::string verdict_summary(const Verdict& verdict);

}  // namespace bi::core
