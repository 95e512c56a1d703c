// The union over the T concurrent passes: an id that diverged on any pass is divergent.
#pragma once

#include <string>
#include <vector>

#include "compare.hpp"

namespace bi::core {

struct UnionReport {
    std::vector<PairReport> per_pass;         // reference vs pass t, in pass order
    std::vector<std::string> divergent_ids;   // diverged (or went missing) on any pass
    std::vector<std::string> token_only_ids;  // generation moved on some pass, never invariant
    std::vector<std::string> logprob_drift_ids;
    std::vector<std::size_t> per_pass_divergent;
    std::vector<std::size_t> per_pass_token_only;
    std::map<std::string, std::size_t> first_divergent_token;  // earliest index over passes
    // Per id, the pass entry shown first: the most severe (forensics.hpp), the earliest pass
    // among equals. Ids are those of the passes' forensics.
    std::map<std::string, IdForensics> forensics;
    std::size_t forensics_truncated = 0;           // entries left out when stored in a cert
    std::map<std::string, double> logprob_deltas;  // logprob-drift ids: max over passes
    std::size_t n_scored_comparisons = 0;          // ids "ok" in both, summed over passes
    std::size_t n_comparisons = 0;                 // ids compared, summed over passes
    double max_logprob_delta = 0.0;

    bool clean() const { return divergent_ids.empty(); }
};

// Rebuilds `forensics` from the passes' entries (after a pass entry was annotated, e.g. with
// contamination).
void merge_pass_forensics(UnionReport& report);

UnionReport union_over_passes(const ArmResults& reference, const std::vector<ArmResults>& passes,
                              const std::string& reference_arm, const std::string& pass_arm,
                              double logit_drift_eps = 0.0);

}  // namespace bi::core
