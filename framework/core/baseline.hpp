// A stored serial baseline against the serial answers of the server given now (issue 26): the
// same question as A against C, asked across builds, backends and hosts. Both sides are arm A
// and its repeat A'; the comparison is core::compare_arms, so a difference means here what it
// means in a cell.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare.hpp"
#include "trial.hpp"

namespace bi::core {

enum class BaselineStatus {
    Same,           // every invariant field and everything generated is equal (GREEN)
    Changed,        // an invariant field moved for some id (RED)
    DriftOnly,      // invariants equal; text, token ids or logprobs moved (AMBER)
    NotComparable,  // another model, work-set, scorer or n_predict, or a side that does not
                    // reproduce itself serially (UNVERIFIED)
};

std::string_view name(BaselineStatus status);  // "same", "changed", "drift_only", ...

// What one side ran and what it answered.
struct BaselineSide {
    ArmResults arm_a;
    std::optional<ArmResults> arm_a_prime;  // the serial repeat; absent: not known to repeat
    std::string model_sha256;
    std::string rows_sha256;  // of the work rows that ran
    std::string scorer;
    std::int64_t n_predict = 0;
};

struct BaselineComparison {
    BaselineStatus status = BaselineStatus::NotComparable;
    std::vector<std::string> reasons;  // why, one line each, the deciding ones first
    // The stored A ("baseline") against the current A ("A"); empty when the sides were not
    // comparable before any answer was looked at.
    std::optional<PairReport> report;
};

// Fails closed: another model, rows, scorer or n_predict, a side without its serial repeat or
// whose repeat differs from it in anything it generated (invariants, text, tokens, logprobs
// beyond logit_drift_eps), or nothing to compare is NotComparable, never Same.
BaselineComparison compare_with_baseline(const BaselineSide& stored, const BaselineSide& current,
                                         double logit_drift_eps = 0.0);

}  // namespace bi::core
