// The verdict: DESIGN.md §5's precedence over arms A, A', B and the T passes of C.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare.hpp"
#include "coverage.hpp"
#include "trial.hpp"
#include "union.hpp"

namespace bi::core {

namespace status {
inline constexpr std::string_view kGreen = "green";
inline constexpr std::string_view kFailed = "failed";
inline constexpr std::string_view kGreenWithCaveat = "green_with_caveat";
inline constexpr std::string_view kGreenUnverified = "green_unverified";
}  // namespace status

inline constexpr double kCompletionFloor = 0.8;  // share of "ok" trials required per arm/pass
inline constexpr std::string_view kGate = "abc_union";

struct CellEvidence {
    ArmResults arm_a;
    std::optional<ArmResults> arm_a_prime;  // the serial self-check, when it ran
    std::optional<ArmResults> arm_b;
    std::vector<ArmResults> arm_c;  // one map per concurrent pass
    ServerOverlapEvidence server_c;
    std::optional<ServerOverlapEvidence> server_b;
};

struct Sensitivity {
    std::size_t n_hot_trials = 0;  // genuinely scored A<->C comparisons over all passes
    std::size_t divergences_seen = 0;
    std::optional<double> rule_of_three_upper;       // 3 / n
    std::optional<double> clopper_pearson_upper_95;  // 1 - 0.05^(1/n), only when none was seen
};

struct Verdict {
    std::string status;
    std::string divergence_class;  // empty when nothing invariant diverged
    std::string anomaly;           // empty unless green_with_caveat
    std::optional<PairReport> serial_check;  // A vs A'
    UnionReport ac;
    std::optional<PairReport> ab;
    std::optional<UnionReport> bc;

    bool overlap_ok = false;
    std::size_t client_depth = 0;  // max over passes, each pass's intervals on their own
    std::vector<std::size_t> per_pass_client_depth;
    ServerOverlapEvidence server_c;
    std::optional<ServerOverlapEvidence> server_b;
    bool arm_b_serial = true;  // arm B showed at most one busy slot

    std::vector<CompletionCensus> census;  // A, then each C pass
    bool completion_floor_ok = false;
    std::vector<PassCoverage> coverage;
    bool cobatch_coverage_checked = false;
    bool cobatch_coverage_ok = false;

    Sensitivity sensitivity;
    std::vector<std::string> decision_reasons;
};

Verdict decide_verdict(const CellEvidence& evidence);

Sensitivity sensitivity_bounds(std::size_t n_hot_trials, std::size_t divergences_seen);

}  // namespace bi::core
