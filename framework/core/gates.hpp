// The gates of the verdict and their evidence, as decide_verdict evaluates them and the cert
// carries them (docs/design.md §5.2–§5.3), and the one aggregation that settles each gate from
// its evidence, called by both decide_verdict and the cert consistency replay.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrivals.hpp"
#include "cold_cache.hpp"
#include "compare.hpp"
#include "coverage.hpp"
#include "determinism.hpp"
#include "drafting.hpp"
#include "forensics.hpp"
#include "lockstep.hpp"
#include "overlap.hpp"
#include "server_kind.hpp"
#include "trial.hpp"
#include "union.hpp"

namespace bi::core {

inline constexpr double kCompletionFloor = 0.8;  // share of "ok" trials required per arm/pass

// A trial that lacks evidence its reference trial has, or that was requested.
struct MissingEvidence {
    std::string test_id;
    std::string arm;    // "A", "B" or "C<t>"
    std::string field;  // "token_ids" or "token_logprobs"
};

struct OverlapGate {
    bool ok = false;
    std::size_t client_max_depth = 0;
    std::vector<std::size_t> per_pass_client_depth;
    ServerOverlapEvidence server;             // arm C, merged over the passes
    std::optional<std::int64_t> total_slots;  // the N-slot server's /props
    std::vector<PassOverlap> per_pass;        // each pass's own client and server evidence
    std::vector<std::string> problems;        // why overlap at N is not proven
};

// One C pass as its token streams showed it (core/lockstep.hpp), with what the cert keeps so that
// the replay can recount it: each judged id's window and step counts, the full-step counts, the
// peak and the phase.
struct PassLockstep {
    int pass = 0;
    // How its requests were sent (core/arrivals): Together or Staggered; nullopt in certs from
    // before the choice, whose passes were all sent together.
    std::optional<Arrivals> schedule;
    LockstepEvidence streams;
    std::vector<std::string> problems;  // why lockstep at N is not shown; empty when it is
    bool ok() const { return problems.empty(); }
    // The pass did what its schedule claims: a staggered one showed at least one prefill inside
    // another request's decode window (a pass sent together claims nothing the streams show).
    bool arrivals_achieved() const {
        return schedule != Arrivals::Staggered || streams.prefills_in_decode() > 0;
    }
};

// Which evidence decided that arm C's requests were computed together.
enum class BatchingEvidence {
    Server,            // the server's own signals (the arms did not stream)
    StreamsAndServer,  // the token streams, agreeing with the server's signals
    Streams,           // the token streams alone (the kind has no signal)
};

// Co-batching as the client saw it: every C pass must show N streams in lockstep. Checked when
// the arms streamed; a pass whose server signals say N while its streams do not names both.
struct LockstepGate {
    bool checked = false;
    bool ok = false;
    BatchingEvidence decided_by = BatchingEvidence::Server;
    std::vector<PassLockstep> per_pass;
    std::vector<std::string> problems;  // each pass's, in order
};

// A serial arm (A or A') given up because the server answered, but failed more of its requests
// than the completion floor allows: no other arm ran (docs/design.md §9.6).
struct GivenUpArm {
    std::string arm;          // "A" or "A'"
    std::string reason;       // the counts, the failures by mode and the first failure's own words
    CompletionCensus census;  // of the requests it sent, with their failures
};

struct CompletionFloorGate {
    bool ok = false;
    double threshold = kCompletionFloor;
    std::vector<CompletionCensus> arms;  // A, then C1..CT
    // Arm B's census, recorded (and read by upstream tooling as n_ok_b); the floor gates A and C.
    std::optional<CompletionCensus> arm_b;
    std::optional<GivenUpArm> given_up;  // set: the cell stopped at its serial arms
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
    // Checked for runs from a server kind (CellEvidence::cache_witness); nullopt in certs from
    // before it, which were judged without it.
    std::optional<ColdCacheGate> cold_cache;
    // Checked where the kind declares draft fields (CellEvidence::draft_fields); nullopt
    // otherwise and in certs from before it.
    std::optional<DraftingGate> drafting;
    // Recorded where --determinism chose a side of a kind with a mode; nullopt otherwise.
    std::optional<DeterminismGate> determinism;
    std::vector<std::string> incomplete_ids;  // never sent or cut off by bi-run: compared nowhere
    std::vector<MissingEvidence> missing_evidence;
    GreedyCheck greedy;
    OverlapGate overlap;
    LockstepGate lockstep;
    CompletionFloorGate completion_floor;
    CoverageGate cobatch_coverage;
    ArmBCheck arm_b;
    SerialSelfCheck serial_self_check;
};

// ---- each gate settled from its own evidence ----

// The census of A, each C pass and B, settled by settle_completion_floor.
CompletionFloorGate completion_floor_gate(const ArmResults& arm_a,
                                          const std::vector<ArmResults>& arm_c,
                                          const std::optional<ArmResults>& arm_b);

// Met when a C pass ran and A and every pass reach kCompletionFloor (arm B does not gate).
void settle_completion_floor(CompletionFloorGate& gate, bool any_pass);

// Each pass settled by settle_pass_coverage; checked when a C pass ran, ok when every pass is.
void settle_coverage(CoverageGate& gate, bool any_pass);

// The overlap gate from what it records (total_slots, each pass's client depth, arm B's server)
// and each pass's server window (`pass_servers`, null: none): the deepest pass, each pass's
// problems, ok, and whether arm B stayed serial (gates.arm_b.serial). With the lockstep gate
// checked (its passes gathered first), a kind without signals is judged by the streams instead,
// and a pass whose streams showed all N in lockstep needs no sampled peak of N.
void settle_overlap(CertGates& gates, std::int64_t dispatch_n,
                    const std::vector<const ServerOverlapEvidence*>& pass_servers,
                    const KindEvidence& evidence);

// Each recorded pass's problems, the gate's problems, ok and decided_by, from the passes' stream
// counts, N, the overlap gate's per-pass server evidence (settled first) and the kind's signals.
void settle_lockstep(LockstepGate& gate, std::int64_t dispatch_n, const OverlapGate& overlap,
                     const KindEvidence& evidence);

// "server", "streams and server", "streams": the cert's words; parse_batching_evidence inverts.
std::string_view name(BatchingEvidence evidence);
std::optional<BatchingEvidence> parse_batching_evidence(std::string_view word);

// The gates' summaries of the pair reports: arm B ran and whether A vs B and B vs C held, and
// A vs A' (ran, passed, compared, divergent ids).
void record_pair_checks(CertGates& gates, const std::optional<PairReport>& serial_check,
                        const std::optional<PairReport>& ab, const std::optional<UnionReport>& bc);

}  // namespace bi::core
