// The gates' aggregation: each gate settled from its own recorded evidence. decide_verdict and
// the cert consistency replay both call these, so the replay restates no formula.
#include "gates.hpp"

#include <algorithm>
#include <utility>

namespace bi::core {

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
    const OverlapInputs inputs{dispatch_n,         overlap.total_slots,
                               gates.arm_b.server, overlap.per_pass_client_depth,
                               pass_servers,       evidence};
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
