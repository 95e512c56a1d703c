// The verdict: docs/design.md §5.1's precedence over arms A, A', B and the T passes of C.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare.hpp"
#include "coverage.hpp"
#include "forensics.hpp"
#include "sample_size.hpp"
#include "server_kind.hpp"
#include "trial.hpp"
#include "union.hpp"
#include "verdict_kinds.hpp"

namespace bi::core {

inline constexpr double kCompletionFloor = 0.8;  // share of "ok" trials required per arm/pass
inline constexpr std::string_view kGate = "abc_union";
// The rule name a verdict records when no rule of the precedence table fired (a green).
inline constexpr std::string_view kNoRuleFired = "none";
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
};

// One C pass's overlap at N, from the client's intervals and the server's own evidence.
struct PassOverlap {
    int pass = 0;
    std::size_t client_depth = 0;
    ServerOverlapEvidence server;       // that pass's window (samples dropped)
    std::vector<std::string> problems;  // why overlap at N is not proven; empty when it is
    bool ok() const { return problems.empty(); }
};

// A trial that lacks evidence its reference trial has, or that was requested.
struct MissingEvidence {
    std::string test_id;
    std::string arm;    // "A", "B" or "C<t>"
    std::string field;  // "token_ids" or "token_logprobs"
};

// One bound over n trials (or prompts) of which `divergent` diverged. In a cell without any
// divergence: the one-sided Clopper–Pearson upper bound at the cell's confidence and the rule of
// three; in a cell with one: the observed rate and its two-sided interval, and no upper bound.
struct RateBound {
    std::size_t n = 0;
    std::size_t divergent = 0;
    std::optional<double> clopper_pearson_upper;
    std::optional<double> rule_of_three_upper;
    std::optional<double> observed_rate;
    std::optional<double> interval_lower;
    std::optional<double> interval_upper;
};

struct PassRate {
    int pass = 0;
    RateBound bound;
};

// What the sensitivity is computed from. A trial counts when pass overlap and its own co-batching
// were proven and its composition (composition.hpp) is new for its id, or when it diverged (a
// divergence needs no proof that it was batched).
struct SensitivityCounts {
    std::size_t n_hot_trials = 0;  // proven co-batched scored comparisons, repeats included
    std::size_t divergent_ids = 0;
    std::size_t trials = 0;  // counted trials
    std::size_t divergent_trials = 0;
    std::size_t prompts = 0;  // distinct ids with a counted trial
    // Per pass (proven or divergent trials of that pass, divergent): repeats across passes
    // do not matter within one pass.
    std::vector<std::pair<std::size_t, std::size_t>> per_pass;
    std::map<std::string, std::size_t> distinct_compositions;  // per id
};

struct Sensitivity {
    std::size_t n_hot_trials = 0;      // scored A<->C comparisons whose co-batching was proven
    std::size_t divergences_seen = 0;  // divergent ids
    // The upstream contract's figures, over per_trial.n and only when nothing diverged.
    std::optional<double> rule_of_three_upper;       // 3 / n
    std::optional<double> clopper_pearson_upper_95;  // 1 - 0.05^(1/n)
    double confidence = kDefaultConfidence;
    RateBound per_trial;             // n = counted trials (distinct proven compositions)
    RateBound per_prompt;            // n = distinct items: the conservative one
    std::vector<PassRate> per_pass;  // only when something diverged: the spread over passes
    std::map<std::string, std::size_t> distinct_compositions;  // per id, ids that counted
};

// The generation lengths a cell was checked at: a cell checked at 64 tokens says nothing about
// 400. Over the scored trials of A and every C pass that report a generated-token count.
struct LengthScope {
    std::optional<std::int64_t> n_predict;
    std::size_t n_trials = 0;
    std::optional<std::int64_t> generated_min;
    std::optional<std::int64_t> generated_median;  // the lower median
    std::optional<std::int64_t> generated_max;
    std::size_t n_hit_limit = 0;  // stopped by the limit (finish_reason length/limit)
};

// Which row of the precedence table decided a verdict, and where its own lines start in
// decision_reasons (the lines before are what the earlier rules wrote when they passed).
struct FiredRule {
    std::string name{kNoRuleFired};
    std::size_t first_reason = 0;

    bool operator==(const FiredRule& other) const {
        return name == other.name && first_reason == other.first_reason;
    }
};

// ---- the gates and their evidence, as the verdict decides them and the cert carries them ----

struct OverlapGate {
    bool ok = false;
    std::size_t client_max_depth = 0;
    std::vector<std::size_t> per_pass_client_depth;
    ServerOverlapEvidence server;             // arm C, merged over the passes
    std::optional<std::int64_t> total_slots;  // the N-slot server's /props
    std::vector<PassOverlap> per_pass;        // each pass's own client and server evidence
    std::vector<std::string> problems;        // why overlap at N is not proven
};

struct CompletionFloorGate {
    bool ok = false;
    double threshold = kCompletionFloor;
    std::vector<CompletionCensus> arms;  // A, then C1..CT
    // Arm B's census, recorded (and read by upstream tooling as n_ok_b); the floor gates A and C.
    std::optional<CompletionCensus> arm_b;
};

struct CoverageGate {
    bool ok = false;
    bool checked = false;
    std::vector<PassCoverage> per_pass;
};

struct ArmBCheck {
    bool ran = false;
    std::optional<bool> ab_passed;
    std::optional<bool> bc_passed;
    bool serial = true;
    std::optional<ServerOverlapEvidence> server;
    bool unpinned = false;         // B's requests named no slot (the kind has none)
    std::size_t pins_ignored = 0;  // B's requests that reported another slot than pinned
    // B rules slot allocation out only when every request ran on the slot it was pinned to.
    bool slot_control() const { return !unpinned && pins_ignored == 0; }
};

struct SerialSelfCheck {
    bool ran = false;
    std::optional<bool> passed;
    std::optional<std::size_t> n_compared;
    std::optional<std::vector<std::string>> divergent_ids;
};

// Greedy decoding, checked when the server listed top alternatives (written only then).
struct GreedyCheck {
    bool checked = false;
    std::size_t n_not_greedy = 0;  // trials with a chosen token that was not the top-1
    std::optional<GreedyViolation> first_violation;
};

struct CertGates {
    std::vector<std::string> incomplete_ids;  // never sent or cut off by bi-run: compared nowhere
    std::vector<MissingEvidence> missing_evidence;
    GreedyCheck greedy;
    OverlapGate overlap;
    CompletionFloorGate completion_floor;
    CoverageGate cobatch_coverage;
    ArmBCheck arm_b;
    SerialSelfCheck serial_self_check;
};

struct Verdict {
    Status status = Status::GreenUnverified;
    KindEvidence evidence = llama_server_evidence();  // the signals judged (names the reasons)
    std::vector<std::string> identity_problems;       // the server ran another model
    FiredRule rule;                                   // set by apply_rules
    std::optional<DivergenceClass> divergence_class;  // set when something invariant diverged
    std::optional<Anomaly> anomaly;                   // set only for green_with_caveat
    std::optional<PairReport> serial_check;           // A vs A'
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

// The gates' summaries of the pair reports: arm B ran and whether A vs B and B vs C held, and
// A vs A' (ran, passed, compared, divergent ids). decide_verdict and the replay both call it.
void record_pair_checks(Verdict& v);

// Evaluates every gate over the evidence (so the cert carries all of it), then applies the
// rules of verdict_rules() in order: the first that fires decides the status.
Verdict decide_verdict(const CellEvidence& evidence);

// The precedence over gathered evidence: the first rule of verdict_rules() that fires sets the
// status, its classification and `rule`, and appends its lines to decision_reasons; none firing
// gives green and kGreenReason. With `passed_reasons`, the rules before it first append what
// they write when they pass (decide_verdict); without, only the deciding lines are written (the
// cert consistency replay, which has no trials to word those lines from).
void apply_rules(Verdict& gathered, bool passed_reasons = true);

// One row of docs/design.md §5.1's precedence table: a predicate over the gathered evidence, the
// status it gives, and the reasons it writes when it fires and when it passes.
struct VerdictRule {
    std::string_view name;
    bool (*fires)(const Verdict& gathered);
    Status status;
    void (*classify)(Verdict& verdict);  // sets divergence_class / anomaly; may be null
    std::vector<std::string> (*fired_reasons)(const Verdict& verdict);
    std::vector<std::string> (*passed_reasons)(const Verdict& verdict);  // may be null
};

// The precedence table, first match wins; `green` when no rule fires.
const std::vector<VerdictRule>& verdict_rules();

// Overlap at N, from what a cell's evidence (or a cert) records: N, the N-slot server's
// total_slots, arm B's server evidence, and per pass the client depth and the server's window.
struct OverlapInputs {
    std::int64_t dispatch_n = 0;
    std::optional<std::int64_t> total_slots;
    std::optional<ServerOverlapEvidence> server_b;
    std::vector<std::size_t> client_depths;                  // one per C pass
    std::vector<const ServerOverlapEvidence*> pass_servers;  // one per C pass; null: none
    KindEvidence evidence = llama_server_evidence();         // the signals the kind declares
};

// The overlap problem of a kind that declares no co-batching signal at all.
inline constexpr std::string_view kNoBatchingEvidence =
    "this server exposes no evidence that requests were batched";

struct OverlapFinding {
    bool arm_b_serial = true;  // arm B showed at most one busy slot and request processing
    std::vector<PassOverlap> per_pass;
    std::vector<std::string> problems;  // cell-level first, then each pass's; empty: proven
};

OverlapFinding evaluate_overlap(const OverlapInputs& inputs);

// The C passes' server evidence as one record: peaks are maxima over the passes, samples add
// up, and the busy-slots-per-decode mean is the mean of the passes that reported one.
ServerOverlapEvidence merge_pass_evidence(const std::vector<ServerOverlapEvidence>& passes);

// "green", "failed (co_batching)", "green_with_caveat (token_only)" ...
std::string verdict_summary(Status status, const std::optional<DivergenceClass>& divergence_class,
                            const std::optional<Anomaly>& anomaly);
std::string verdict_summary(const Verdict& verdict);

RateBound rate_bound(std::size_t n, std::size_t divergent, double confidence, bool cell_diverged);

// The bounds for the counts; a cell "diverged" when divergent_ids > 0.
Sensitivity sensitivity_bounds(const SensitivityCounts& counts, double confidence);

// The counts a cert's sensitivity records (every n and divergent), to recompute its bounds.
SensitivityCounts recorded_counts(const Sensitivity& s);

}  // namespace bi::core
