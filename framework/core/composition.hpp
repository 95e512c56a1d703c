// Co-batch compositions: which other ids a trial's request overlapped in time, and how many
// distinct compositions each id has met over the passes. A trial tells something new about
// batching only when its id has not yet run next to that same set of neighbours.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "trial.hpp"

namespace bi::core {

// The sorted ids of the other trials whose request interval overlaps this one's (touching
// intervals do not overlap); ids without an interval have no composition.
using Composition = std::vector<std::string>;

std::map<std::string, Composition> pass_compositions(const ArmResults& pass);

struct CompositionCount {
    std::map<std::string, std::size_t> distinct_per_id;  // ids that counted at least once
    std::vector<std::vector<std::string>> counted_ids;   // per pass: trials that counted
    std::size_t n_counted = 0;                           // over all passes
};

// Counts, pass by pass in order, the trials among `proven[t]` (ids whose co-batching pass t
// proved) whose composition is new for their id; the first trial of an id always is.
CompositionCount count_compositions(const std::vector<ArmResults>& passes,
                                    const std::vector<std::set<std::string>>& proven);

}  // namespace bi::core
