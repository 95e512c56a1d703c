// The gates' aggregation: each gate settled from its own recorded evidence. decide_verdict and
// the cert consistency replay both call these, so the replay restates no formula.
#include "gates.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "text.hpp"

namespace bi::core {

namespace {

// What the streams of a pass show when its decoding requests were not in lockstep.
std::string unbatched_shape(const LockstepEvidence& s) {
    if (s.ids.empty())
        return "no answer streamed two token chunks or more (" +
               std::to_string(s.too_short_ids.size()) + " too short): nothing to judge";
    if (s.phase < 0) return "one request decoding at a time (no two decode windows overlap)";
    if (s.peak < 2)
        return "time-sliced decoding: the decode windows overlap, but no two requests made a "
               "token in the same step (their tokens alternate, median phase " +
               format_fixed(s.phase, 2) + " of a step)";
    return "the requests decoding together made their tokens together in only " +
           std::to_string(s.lockstep_multi_steps) + " of " + std::to_string(s.multi_steps) +
           " steps (need " + format_percent(kLockstepShare, 0) + "), at a median phase of " +
           format_fixed(s.phase, 2) + " of a step (need at most " +
           format_fixed(1.0 / (2.0 * static_cast<double>(std::max(s.n, 1))), 2) + ")";
}

// What the streams of a pass show when they never had all N decoding in lockstep.
std::string narrow_shape(const LockstepEvidence& s, std::int64_t n) {
    const std::string all = std::to_string(n);
    if (s.full_steps == 0)
        return "at most " + std::to_string(s.peak) + " requests making a token together, never " +
               all + " decoding at once";
    return "all " + all + " in lockstep in " + std::to_string(s.lockstep_full_steps) + " of " +
           std::to_string(s.full_steps) + " steps with " + all + " decoding (need " +
           format_percent(kLockstepShare, 0) + ")";
}

// What the server's own signals said of one pass, for a line that names both.
std::string server_claim(const ServerOverlapEvidence& s, const KindEvidence& kind) {
    std::vector<std::string> parts;
    if (kind.has_slots())
        parts.push_back(std::to_string(s.peak_busy_slots) + " busy slots in " + kind.slots_path);
    if (kind.has_gauge())
        parts.push_back(std::to_string(s.peak_requests_processing) + " " +
                        short_metric(kind.running_gauge));
    if (kind.has_steps() && s.mean_busy_slots_per_decode)
        parts.push_back(format_fixed(*s.mean_busy_slots_per_decode, 2) + " busy slots per step");
    return join(parts, ", ");
}

int max_peak(const LockstepGate& gate) {
    int peak = 0;
    for (const auto& pass : gate.per_pass) peak = std::max(peak, pass.streams.peak);
    return peak;
}

}  // namespace

std::string_view name(BatchingEvidence evidence) {
    switch (evidence) {
        case BatchingEvidence::Server:
            return "server";
        case BatchingEvidence::StreamsAndServer:
            return "streams and server";
        case BatchingEvidence::Streams:
            return "streams";
    }
    return "server";
}

std::optional<BatchingEvidence> parse_batching_evidence(std::string_view word) {
    for (auto e : std::array{BatchingEvidence::Server, BatchingEvidence::StreamsAndServer,
                             BatchingEvidence::Streams})
        if (name(e) == word) return e;
    return std::nullopt;
}

void settle_lockstep(LockstepGate& gate, std::int64_t dispatch_n, const OverlapGate& overlap,
                     const KindEvidence& evidence) {
    gate.problems.clear();
    if (!gate.checked) {
        gate.ok = true;
        gate.decided_by = BatchingEvidence::Server;
        return;
    }
    const bool server_signals = evidence.has_any();
    gate.decided_by =
        server_signals ? BatchingEvidence::StreamsAndServer : BatchingEvidence::Streams;
    bool any_n_wide = false;
    for (std::size_t t = 0; t < gate.per_pass.size(); ++t) {
        PassLockstep& pass = gate.per_pass[t];
        pass.problems.clear();
        const LockstepEvidence& streams = pass.streams;
        any_n_wide = any_n_wide || streams.lockstep_at_n();
        const std::string at = "pass " + std::to_string(pass.pass) + ": ";
        const PassOverlap* server = t < overlap.per_pass.size() ? &overlap.per_pass[t] : nullptr;
        if (!streams.batched()) {
            // The consistent liar and the time-slicer: their signals say N, their streams do not.
            if (server_signals && server && server->ok())
                pass.problems.push_back(
                    at + "the server reports " + std::to_string(dispatch_n) +
                    " computing together (" + server_claim(server->server, evidence) +
                    "), but the token streams show " + unbatched_shape(streams));
            else
                pass.problems.push_back(at + "the token streams show " + unbatched_shape(streams));
        } else if (!server_signals && !streams.lockstep_at_n()) {
            // Without a signal of its own, every pass must show the whole width.
            pass.problems.push_back(at + "the token streams show " +
                                    narrow_shape(streams, dispatch_n));
        }
        for (const auto& problem : pass.problems) gate.problems.push_back(problem);
    }
    if (gate.per_pass.empty()) gate.problems.emplace_back("no concurrent pass streamed");
    // With the server's signals at N in every pass, the streams must still show the whole width
    // once: a server that batches fewer than N and says N would otherwise pass.
    else if (server_signals && !any_n_wide)
        gate.problems.push_back("no pass's token streams showed all " + std::to_string(dispatch_n) +
                                " requests decoding in lockstep (at most " +
                                std::to_string(max_peak(gate)) +
                                " made a token together): the answers may be too short to show it");
    gate.ok = gate.problems.empty();
}

CompletionFloorGate completion_floor_gate(const ArmResults& arm_a,
                                          const std::vector<ArmResults>& arm_c,
                                          const std::optional<ArmResults>& arm_b) {
    CompletionFloorGate gate;
    gate.arms.push_back(completion_census(arm_a, "A"));
    for (std::size_t t = 0; t < arm_c.size(); ++t)
        gate.arms.push_back(completion_census(arm_c[t], "C" + std::to_string(t + 1)));
    if (arm_b) gate.arm_b = completion_census(*arm_b, "B");
    settle_completion_floor(gate, !arm_c.empty());
    return gate;
}

void settle_completion_floor(CompletionFloorGate& gate, bool any_pass) {
    gate.ok = any_pass;
    for (const auto& census : gate.arms) gate.ok &= census.meets(kCompletionFloor);
}

void settle_coverage(CoverageGate& gate, bool any_pass) {
    gate.checked = any_pass;
    gate.ok = any_pass;
    for (auto& pass : gate.per_pass) {
        settle_pass_coverage(pass);
        gate.ok &= pass.ok;
    }
}

void settle_overlap(CertGates& gates, std::int64_t dispatch_n,
                    const std::vector<const ServerOverlapEvidence*>& pass_servers,
                    const KindEvidence& evidence) {
    OverlapGate& overlap = gates.overlap;
    overlap.client_max_depth = 0;
    for (auto depth : overlap.per_pass_client_depth)
        overlap.client_max_depth = std::max(overlap.client_max_depth, depth);
    OverlapInputs inputs{dispatch_n,
                         overlap.total_slots,
                         gates.arm_b.server,
                         overlap.per_pass_client_depth,
                         pass_servers,
                         evidence,
                         gates.lockstep.checked,
                         {}};
    for (const auto& pass : gates.lockstep.per_pass)
        inputs.streams_n_wide.push_back(pass.streams.lockstep_at_n());
    OverlapFinding finding = evaluate_overlap(inputs);
    gates.arm_b.serial = finding.arm_b_serial;
    overlap.per_pass = std::move(finding.per_pass);
    overlap.problems = std::move(finding.problems);
    overlap.ok = overlap.problems.empty();
}

void record_pair_checks(CertGates& gates, const std::optional<PairReport>& serial_check,
                        const std::optional<PairReport>& ab, const std::optional<UnionReport>& bc) {
    ArmBCheck& b = gates.arm_b;
    b.ran = ab.has_value();
    b.ab_passed = ab ? std::optional<bool>(ab->clean()) : std::nullopt;
    b.bc_passed = bc ? std::optional<bool>(bc->clean()) : std::nullopt;
    SerialSelfCheck& s = gates.serial_self_check;
    s = {};
    s.ran = serial_check.has_value();
    if (serial_check) {
        s.passed = serial_check->clean();
        s.n_compared = serial_check->n_compared;
        s.divergent_ids = serial_check->divergent_ids;
    }
}

}  // namespace bi::core
