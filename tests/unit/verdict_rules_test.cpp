// The precedence table: one rule per RuleId in number order, each with the name a cert records,
// and apply_rules deciding by the first rule that fires.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "core/verdict.hpp"

using namespace bi;

namespace {

// Gathered evidence on which no rule fires: every gate met, nothing compared diverged.
core::Verdict passing_gates() {
    core::Verdict v;
    v.gates.overlap.ok = true;
    v.gates.completion_floor.ok = true;
    v.gates.cobatch_coverage.ok = true;
    return v;
}

}  // namespace

TEST_CASE("every rule id has a name and a row, in precedence order", "[verdict_rules]") {
    const auto& rules = core::verdict_rules();
    REQUIRE(rules.size() == core::kRuleCount);
    // Ids 0 to 12 in their order; a row added later takes the next id, and its place in the
    // table is where it belongs: the drafting gate (13), a precondition, right after row 0, and
    // the determinism gate (14) after it, then a serial arm given up on its floor (15).
    const std::vector<core::RuleId> order{core::RuleId::ColdCache,
                                          core::RuleId::Drafting,
                                          core::RuleId::Determinism,
                                          core::RuleId::SerialGivenUp,
                                          core::RuleId::SerialSelfCheck,
                                          core::RuleId::AcInvariantDivergence,
                                          core::RuleId::Incomplete,
                                          core::RuleId::ServerIdentity,
                                          core::RuleId::Overlap,
                                          core::RuleId::Lockstep,
                                          core::RuleId::MissingEvidence,
                                          core::RuleId::Greedy,
                                          core::RuleId::CompletionFloor,
                                          core::RuleId::CobatchCoverage,
                                          core::RuleId::AbInvariantDivergence,
                                          core::RuleId::GenerationDrift};
    REQUIRE(order.size() == core::kRuleCount);
    std::set<std::string> names;
    std::set<core::RuleId> ids;
    for (std::size_t i = 0; i < core::kRuleCount; ++i) {
        const auto id = order[i];
        CHECK(rules[i].id == id);
        CHECK(static_cast<std::size_t>(id) < core::kRuleCount);
        ids.insert(id);
        CHECK(core::name(id) != "?");
        CHECK(core::rule_id(core::name(id)) == id);
        names.emplace(core::name(id));
    }
    CHECK(names.size() == core::kRuleCount);
    CHECK(ids.size() == core::kRuleCount);  // every id from 0 to kRuleCount - 1, once
    CHECK_FALSE(names.count(std::string(core::kNoRuleFired)));
    CHECK_FALSE(core::rule_id(core::kNoRuleFired).has_value());
    CHECK_FALSE(core::rule_id("no_such_rule").has_value());
}

TEST_CASE("rule names are the words certs record", "[verdict_rules]") {
    CHECK(core::name(core::RuleId::SerialSelfCheck) == "serial_self_check");
    CHECK(core::name(core::RuleId::ServerIdentity) == "server_identity");
    CHECK(core::name(core::RuleId::Greedy) == "greedy");
    CHECK(core::name(core::RuleId::GenerationDrift) == "generation_drift");
}

TEST_CASE("apply_rules records the first rule that fires, by its name", "[verdict_rules]") {
    auto v = passing_gates();
    core::apply_rules(v, false);
    CHECK(v.status == core::Status::Green);
    CHECK(v.rule.name == core::kNoRuleFired);

    // Overlap (5) comes before the completion floor (8) and co-batch coverage (9).
    v = passing_gates();
    v.gates.overlap.ok = false;
    v.gates.completion_floor.ok = false;
    v.gates.cobatch_coverage.ok = false;
    core::apply_rules(v, false);
    CHECK(v.status == core::Status::GreenUnverified);
    CHECK(v.rule.name == core::name(core::RuleId::Overlap));

    v = passing_gates();
    v.gates.completion_floor.ok = false;
    v.gates.cobatch_coverage.ok = false;
    core::apply_rules(v, false);
    CHECK(v.rule.name == core::name(core::RuleId::CompletionFloor));

    // A divergence between A and C (2) outranks every gate.
    v = passing_gates();
    v.gates.overlap.ok = false;
    v.ac.divergent_ids = {"id1"};
    core::apply_rules(v, false);
    CHECK(v.status == core::Status::Failed);
    CHECK(v.rule.name == core::name(core::RuleId::AcInvariantDivergence));
}
