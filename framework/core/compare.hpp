// Pairwise comparison of two arms (AC, AB, BC, AA'): what diverged, where, and how.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "forensics.hpp"
#include "json.hpp"
#include "trial.hpp"

namespace bi::core {

// One invariant field that differs for one id.
struct FieldMismatch {
    std::string test_id;
    std::string field;
    Json left;
    Json right;
    std::string left_sha;
    std::string right_sha;
    bool token_identical = false;  // everything generated (text, tokens, reasoning, tool calls,
                                   // token count, stop reason) was identical anyway
};

struct GroupCount {
    std::size_t n_compared = 0;
    std::size_t n_divergent = 0;
};

struct PairReport {
    std::string left_arm;
    std::string right_arm;
    std::size_t n_compared = 0;              // ids present in both arms
    std::size_t n_scored_both = 0;           // of those, failure_mode "ok" on both sides
    std::vector<std::string> divergent_ids;  // invariant mismatch, or present on one side only
    std::vector<std::string> only_left;
    std::vector<std::string> only_right;
    std::vector<FieldMismatch> rows;
    std::size_t rows_truncated = 0;  // rows left out when the report was stored in a cert
    // Invariants equal, but something generated differs: content, token ids, reasoning, tool
    // calls, generated token count or stop reason.
    std::vector<std::string> token_only_ids;
    std::vector<std::string> logprob_drift_ids;  // invariants equal, chosen-token logprobs differ
    double max_logprob_delta = 0.0;              // over ids whose token ids agree
    // Ids whose tokens differ (token ids, else the logprob entries' texts): the first index.
    std::map<std::string, std::size_t> first_divergent_token;
    // Every id whose generation differs (divergent or token-only, present on both sides).
    std::map<std::string, IdForensics> forensics;
    std::size_t forensics_truncated = 0;           // entries left out when stored in a cert
    std::map<std::string, double> logprob_deltas;  // logprob-drift ids: max |A - C| per id
    std::map<std::string, GroupCount> by_family;
    std::map<std::string, GroupCount> by_fill;

    bool clean() const { return divergent_ids.empty(); }
};

// Compares every id of both arms field by field; ids are reported in sorted order. An id whose
// only change is a chosen-token logprob delta smaller than `logit_drift_eps` is not logprob
// drift (0: every delta counts).
PairReport compare_arms(const ArmResults& left, const ArmResults& right, std::string left_arm,
                        std::string right_arm, double logit_drift_eps = 0.0);

// Index of the first position where two token sequences differ (a strict prefix differs at the
// shorter length); nullopt when they are identical.
std::optional<std::size_t> first_token_difference(const std::vector<std::int64_t>& a,
                                                  const std::vector<std::int64_t>& b);

}  // namespace bi::core
