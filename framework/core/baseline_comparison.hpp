// A stored serial baseline against the serial answers of the server given now (docs/baseline.md):
// the same question as A against C, asked across builds, backends and hosts. Both sides are arm
// A and what its repeat A' showed; the comparison is core::compare_arms, so a difference means
// here what it means in a cell.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compare.hpp"
#include "trial.hpp"
#include "verdict_kinds.hpp"

namespace bi::core {

enum class BaselineStatus {
    Same,           // every invariant field and everything generated is equal (GREEN)
    Changed,        // an invariant field moved for some id (RED)
    DriftOnly,      // invariants equal; text, token ids or logprobs moved (AMBER)
    NotComparable,  // another model, work-set, scorer or request, or a side that is no
                    // reference (does not reproduce itself, too few answers, not greedy)
                    // (UNVERIFIED)
};

std::string_view name(BaselineStatus status);  // "same", "changed", "drift_only", ...
std::optional<BaselineStatus> parse_baseline_status(std::string_view text);

// What the serial repeat A' showed against A: the ids whose answers moved in any way.
struct SerialRepeat {
    std::size_t n_compared = 0;                  // ids answered by both
    std::vector<std::string> divergent_ids;      // an invariant field moved, or one side lacks it
    std::vector<std::string> token_only_ids;     // text or tokens moved, invariants held
    std::vector<std::string> logprob_drift_ids;  // only logprobs moved

    // Nothing moved, and something was compared.
    bool exact() const;
    std::vector<std::string> moved_ids() const;  // the three lists, in that order
};

// A against A', exactly but for logprob-only drift below `logit_drift_eps`.
SerialRepeat serial_repeat(const ArmResults& a, const ArmResults& a_prime,
                           double logit_drift_eps = 0.0);

// What a side's answers depend on besides the server; two sides are compared only when every
// term agrees (test ids name the model and ctx, so those are terms too).
struct BaselineTerms {
    Source source = Source::Mock;
    std::string model_sha256;  // the model file's (or directory manifest's, or store digest)
    std::string rows_sha256;   // the work rows that ran
    std::string model_name;    // names the test ids
    std::int64_t ctx = 0;
    std::int64_t reps = 1;
    std::string endpoint;
    std::int64_t n_predict = 0;
    std::int64_t logprobs = 0;
    std::string scorer;
    std::string scorer_config;
};

// "the model file (sha256) differs: baseline 1a2b..., now 3c4d...", one line per term that
// differs, in the order above.
std::vector<std::string> term_differences(const BaselineTerms& stored,
                                          const BaselineTerms& current);

// One side of a check: what it ran and what it answered.
struct BaselineSide {
    BaselineTerms terms;
    ArmResults arm_a;
    std::optional<SerialRepeat> repeat;  // absent: no A' ran, so it is not known to repeat
    // Problems already judged about the side's evidence (a server that named another model).
    std::vector<std::string> problems;
};

struct BaselineComparison {
    BaselineStatus status = BaselineStatus::NotComparable;
    std::vector<std::string> reasons;  // why, one line each, the deciding ones first
    // The stored A ("baseline") against the current A ("A"); empty when the sides were not
    // comparable before any answer was looked at.
    std::optional<PairReport> report;
};

// The changed ids a cert's summary of a check names (the check report names them all).
inline constexpr std::size_t kMaxSummaryIds = 32;

// What a cert records of the check its arm A was part of (run-live --baseline): the cell's
// verdict is not changed by it.
struct BaselineCheckSummary {
    BaselineStatus status = BaselineStatus::NotComparable;
    std::vector<std::string> reasons;
    std::string baseline_digest;           // the baseline file's digest member
    std::string check_file;                // the check report, relative to the cert's directory
    std::vector<std::string> changed_ids;  // at most kMaxSummaryIds; the report has them all
    std::size_t n_changed = 0;
};

// Why a side cannot stand as a reference, one line each starting with `which` ("the baseline"):
// a judged problem, a missing hash, no serial repeat or one that moved anything, answers under
// the completion floor, a non-greedy choice. Empty when it can.
std::vector<std::string> reference_problems(const BaselineSide& side, const std::string& which);

// Fails closed: any term that differs, a side without its serial repeat or whose repeat moved
// anything (its own jitter would read as drift), a side under the completion floor (answers
// that failed alike are no agreement), a side whose logprobs show a non-greedy choice, a side
// with a judged problem, or nothing to compare is NotComparable, never Same.
BaselineComparison compare_with_baseline(const BaselineSide& stored, const BaselineSide& current,
                                         double logit_drift_eps = 0.0);

}  // namespace bi::core
