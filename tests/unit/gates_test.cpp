// The gates' aggregation that decide_verdict and the cert replay share: each gate settled from
// its own recorded evidence gives what decide_verdict gave, and an edit to that evidence shows.
#include <catch2/catch.hpp>

#include <vector>

#include "core/gates.hpp"
#include "core/verdict.hpp"
#include "trial_builders.hpp"

using namespace bi;
using bi::testing::clean_cell;

namespace {

core::CompletionCensus census(const std::string& arm, std::size_t n, std::size_t n_ok) {
    core::CompletionCensus c;
    c.arm = arm;
    c.n = n;
    c.n_ok = n_ok;
    return c;
}

std::vector<const core::ServerOverlapEvidence*> servers_of(const core::OverlapGate& g) {
    std::vector<const core::ServerOverlapEvidence*> servers;
    for (const auto& pass : g.per_pass) servers.push_back(&pass.server);
    return servers;
}

}  // namespace

TEST_CASE("a pass's coverage is settled from its counts", "[gates]") {
    CHECK(core::required_cobatched(0) == 2);
    CHECK(core::required_cobatched(2) == 2);
    CHECK(core::required_cobatched(5) == 4);
    CHECK(core::required_cobatched(11) == 9);

    core::PassCoverage pass;
    pass.n_ids = 5;
    pass.n_cobatched = 4;
    core::settle_pass_coverage(pass);
    CHECK(pass.required == 4);
    CHECK(pass.attribution_certain);
    CHECK(pass.ok);

    pass.n_cobatched = 3;
    core::settle_pass_coverage(pass);
    CHECK_FALSE(pass.ok);

    pass.n_cobatched = 5;
    pass.missing_interval_ids = {"id2"};
    core::settle_pass_coverage(pass);
    CHECK_FALSE(pass.attribution_certain);
    CHECK_FALSE(pass.ok);
}

TEST_CASE("the coverage gate settles every pass and needs one", "[gates]") {
    core::CoverageGate gate;
    gate.per_pass.resize(2);
    for (auto& pass : gate.per_pass) {
        pass.n_ids = 10;
        pass.n_cobatched = 8;
    }
    core::settle_coverage(gate, true);
    CHECK(gate.checked);
    CHECK(gate.ok);
    CHECK(gate.per_pass[1].required == 8);

    gate.per_pass[1].n_cobatched = 7;
    gate.per_pass[1].ok = true;  // a recorded ok that its counts do not give
    core::settle_coverage(gate, true);
    CHECK_FALSE(gate.per_pass[1].ok);
    CHECK_FALSE(gate.ok);

    core::CoverageGate none;
    core::settle_coverage(none, false);
    CHECK_FALSE(none.checked);
    CHECK_FALSE(none.ok);
}

TEST_CASE("the completion floor needs a pass and 80 percent ok in A and every pass", "[gates]") {
    core::CompletionFloorGate gate;
    gate.arms = {census("A", 10, 8), census("C1", 10, 10)};
    gate.arm_b = census("B", 10, 0);  // recorded, never gating
    core::settle_completion_floor(gate, true);
    CHECK(gate.ok);
    core::settle_completion_floor(gate, false);
    CHECK_FALSE(gate.ok);
    gate.arms[1] = census("C1", 10, 7);
    core::settle_completion_floor(gate, true);
    CHECK_FALSE(gate.ok);

    const auto e = clean_cell();
    const auto built = core::completion_floor_gate(e.arm_a, e.arm_c, e.arm_b);
    REQUIRE(built.arms.size() == 1 + e.arm_c.size());
    CHECK(built.arms.back().arm == "C3");
    CHECK(built.arm_b.has_value());
    CHECK(built.ok);
}

TEST_CASE("the overlap gate settled from its record is the one decide_verdict gave", "[gates]") {
    auto e = clean_cell();
    e.server_c_passes[1].peak_busy_slots = 3;
    const auto v = core::decide_verdict(e);
    REQUIRE_FALSE(v.gates.overlap.ok);

    core::CertGates gates = v.gates;
    gates.overlap.ok = true;
    gates.overlap.problems.clear();
    gates.overlap.client_max_depth = 0;
    gates.arm_b.serial = false;
    core::settle_overlap(gates, v.dispatch_n, servers_of(v.gates.overlap), v.kind_signals);
    CHECK(gates.overlap.ok == v.gates.overlap.ok);
    CHECK(gates.overlap.problems == v.gates.overlap.problems);
    CHECK(gates.overlap.client_max_depth == v.gates.overlap.client_max_depth);
    CHECK(gates.arm_b.serial == v.gates.arm_b.serial);
    REQUIRE(gates.overlap.per_pass.size() == v.gates.overlap.per_pass.size());
    CHECK(gates.overlap.per_pass[1].problems == v.gates.overlap.per_pass[1].problems);

    // A client depth edited below N is a problem of that pass.
    gates.overlap.per_pass_client_depth[0] = 1;
    core::settle_overlap(gates, v.dispatch_n, servers_of(v.gates.overlap), v.kind_signals);
    REQUIRE_FALSE(gates.overlap.per_pass[0].ok());
    CHECK(gates.overlap.per_pass[0].problems.front() == "pass 1: client depth 1 (need 4)");
}

TEST_CASE("the pair checks summarise A vs B, B vs C and A vs A'", "[gates]") {
    auto e = clean_cell();
    e.arm_b->at("id1").extracted_answer = "other";
    const auto v = core::decide_verdict(e);
    core::CertGates gates;
    core::record_pair_checks(gates, v.serial_check, v.ab, v.bc);
    CHECK(gates.arm_b.ran);
    CHECK(gates.arm_b.ab_passed == false);
    CHECK(gates.arm_b.bc_passed == false);
    CHECK(gates.serial_self_check.ran);
    CHECK(gates.serial_self_check.passed == true);

    core::record_pair_checks(gates, std::nullopt, std::nullopt, std::nullopt);
    CHECK_FALSE(gates.arm_b.ran);
    CHECK_FALSE(gates.arm_b.ab_passed.has_value());
    CHECK_FALSE(gates.serial_self_check.ran);
    CHECK_FALSE(gates.serial_self_check.passed.has_value());
}
