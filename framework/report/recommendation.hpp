// The operator's decision: which N to run, and whether to pay for a determinism mode, from the
// certs a reader can rely on (docs/report.md "The recommendation").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report_model.hpp"

namespace bi::report {

// Whether a cell may back a recommendation: a trusted GREEN of a live run (never the mock's, never
// GREEN (unverified)) whose configuration has no RED in its history (previous[]).
bool recommendable(const ReportEntry& entry);

// One determinism side of a model: the largest N the safe-N rule allows from recommendable cells
// alone, and the speedup measured there (the smallest over the ctxs; absent when none recorded).
struct SideAnswer {
    std::string determinism;  // "", "off" or "on", as ModelGrid::determinism
    std::optional<std::int64_t> n;
    std::optional<double> speedup;
};

struct Recommendation {
    std::string model;
    std::vector<SideAnswer> sides;  // one per side the model has certs of, "" then "off", "on"
    // The side to run: the one with the most speedup among those with an N (a known speedup
    // before an unknown one, then the larger N, then the earlier side); none when no side has one.
    std::optional<std::size_t> chosen;
};

// One recommendation per model, models in name order.
std::vector<Recommendation> recommend(const std::vector<ModelGrid>& grids);

// "recommendation: tiny: --parallel 4 (1.90x the tokens/s of one at a time, GREEN at every ctx
// measured)" and, with both determinism sides, "...; determinism mode on: GREEN to N 4, 1.90x;
// off: no N qualifies"; nullopt when no side of the model qualifies.
std::optional<std::string> recommendation_line(const Recommendation& recommendation);

// The lines of every model that has one; empty when nothing qualifies.
std::vector<std::string> recommendation_lines(const std::vector<ModelGrid>& grids);

// Each cell a model ran with the determinism mode both off and on, one line each, the mode's
// side first: "tiny ctx 512 N 4: mode on: GREEN, 1.90x; off: RED, 2.70x"; empty when no model
// has both sides.
std::vector<std::string> determinism_pair_lines(const std::vector<ModelGrid>& grids);

}  // namespace bi::report
