// The precedence table of docs/design.md §5.1: one row per rule, first match wins.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verdict_kinds.hpp"

namespace bi::core {

struct Verdict;

// The rules, numbered in precedence order (a lower number is asked first), except the rows added
// later, which are numbered on and placed where they belong (verdict_rules() is the order). The
// names a cert records come from name(RuleId).
enum class RuleId : std::uint8_t {
    ColdCache = 0,  // row 0: a precondition of every other row (the arms ran cold)
    SerialSelfCheck = 1,
    AcInvariantDivergence = 2,
    Incomplete = 3,
    ServerIdentity = 4,
    Overlap = 5,
    Lockstep = 6,
    MissingEvidence = 7,
    Greedy = 8,
    CompletionFloor = 9,
    CobatchCoverage = 10,
    AbInvariantDivergence = 11,
    GenerationDrift = 12,
    Drafting = 13,     // asked right after ColdCache: another precondition (the arms drafted alike)
    Determinism = 14,  // asked after Drafting: a mode asked on must be in effect
    SerialGivenUp = 15,  // asked after Determinism: the serial arms met their completion floor
};
inline constexpr std::size_t kRuleCount = 16;

// "serial_self_check", "ac_invariant_divergence", ...: the rule's name in a cert.
std::string_view name(RuleId rule);

// The inverse of name(RuleId); nullopt for a word that names no rule (kNoRuleFired among them).
std::optional<RuleId> rule_id(std::string_view name);

// The rule name a verdict records when no rule of the precedence table fired (a green).
inline constexpr std::string_view kNoRuleFired = "none";

// Which row of the precedence table decided a verdict, and where its own lines start in
// decision_reasons (the lines before are what the earlier rules wrote when they passed).
struct FiredRule {
    std::string name{kNoRuleFired};
    std::size_t first_reason = 0;

    bool operator==(const FiredRule& other) const {
        return name == other.name && first_reason == other.first_reason;
    }
};

// One row of docs/design.md §5.1's precedence table: a predicate over the gathered evidence, the
// status it gives, and the reasons it writes when it fires and when it passes.
struct VerdictRule {
    RuleId id;
    bool (*fires)(const Verdict& gathered);
    Status status;
    void (*classify)(Verdict& verdict);  // sets divergence_class / anomaly; may be null
    std::vector<std::string> (*fired_reasons)(const Verdict& verdict);
    std::vector<std::string> (*passed_reasons)(const Verdict& verdict);  // may be null
};

// The precedence table, first match wins; `green` when no rule fires.
const std::vector<VerdictRule>& verdict_rules();

}  // namespace bi::core
