#include "recommendation.hpp"

#include <algorithm>
#include <tuple>

#include "core/cert_history.hpp"
#include "core/text.hpp"
#include "throughput_text.hpp"
#include "verdict_headline.hpp"

namespace bi::report {

namespace {

std::string speedup_word(const std::optional<double>& speedup) {
    return speedup ? core::format_fixed(*speedup, *speedup < 10.0 ? 2 : 1) + "x"
                   : "speedup unknown";
}

// The smallest speedup the certs at N record over the grid's ctxs: what every ctx reaches.
std::optional<double> speedup_at(const ModelGrid& grid, std::int64_t n) {
    std::optional<double> least;
    for (auto ctx : grid.ctxs) {
        const ReportEntry* entry = grid.at(ctx, n);
        const auto& throughput = entry ? entry->cert().throughput : std::nullopt;
        const auto speedup = throughput ? throughput->speedup() : std::nullopt;
        if (speedup && (!least || *speedup < *least)) least = speedup;
    }
    return least;
}

std::string side_name(const std::string& determinism) {
    return determinism.empty() ? "mode not asked" : "mode " + determinism;
}

std::string side_text(const SideAnswer& side) {
    if (!side.n) return side_name(side.determinism) + ": no N qualifies";
    return side_name(side.determinism) + ": GREEN to N " + std::to_string(*side.n) + ", " +
           speedup_word(side.speedup);
}

// Orders sides for the choice: a known speedup, the larger one, then the larger N.
bool better(const SideAnswer& a, const SideAnswer& b) {
    const auto key = [](const SideAnswer& s) {
        return std::make_tuple(s.speedup.has_value(), s.speedup.value_or(0.0), s.n.value_or(0));
    };
    return key(a) > key(b);
}

}  // namespace

bool recommendable(const ReportEntry& entry) {
    const core::Cert& cert = entry.cert();
    return entry.trusted() && cert.verdict.status == core::Status::Green &&
           cert.source == core::Source::Live && core::tally_history(cert).reds == 0;
}

std::vector<Recommendation> recommend(const std::vector<ModelGrid>& grids) {
    std::vector<Recommendation> out;
    for (const auto& grid : grids) {
        if (out.empty() || out.back().model != grid.model) out.push_back({grid.model, {}, {}});
        Recommendation& r = out.back();
        SideAnswer side{grid.determinism, largest_safe_n(grid, recommendable), std::nullopt};
        if (side.n) side.speedup = speedup_at(grid, *side.n);
        r.sides.push_back(side);
        if (side.n && (!r.chosen || better(side, r.sides[*r.chosen])))
            r.chosen = r.sides.size() - 1;
    }
    return out;
}

std::optional<std::string> recommendation_line(const Recommendation& r) {
    if (!r.chosen) return std::nullopt;
    const SideAnswer& best = r.sides[*r.chosen];
    std::string line = "recommendation: " + r.model + ": --parallel " + std::to_string(*best.n);
    if (!best.determinism.empty()) line += " with the determinism mode " + best.determinism;
    line += " (" + speedup_word(best.speedup) + ", GREEN at every ctx measured and every N below)";
    if (r.sides.size() < 2) return line;
    std::vector<std::string> sides;
    for (const auto& side : r.sides) sides.push_back(side_text(side));
    return line + "; " + core::join(sides, "; ");
}

std::vector<std::string> recommendation_lines(const std::vector<ModelGrid>& grids) {
    std::vector<std::string> lines;
    for (const auto& r : recommend(grids))
        if (auto line = recommendation_line(r)) lines.push_back(*line);
    return lines;
}

std::vector<std::string> determinism_pair_lines(const std::vector<ModelGrid>& grids) {
    std::vector<std::string> lines;
    const auto side = [](const ReportEntry* entry) {
        if (!entry) return std::string("not measured");
        const std::string word =
            entry->trusted() ? std::string(verdict_word(entry->cert().verdict.status)) : "INVALID";
        return word + ", " + speedup_text(entry->cert().throughput);
    };
    for (const auto& on : grids) {
        if (on.determinism != "on") continue;
        const auto off = std::find_if(grids.begin(), grids.end(), [&](const ModelGrid& grid) {
            return grid.model == on.model && grid.determinism == "off";
        });
        if (off == grids.end()) continue;
        for (auto ctx : on.ctxs)
            for (auto n : on.ns) {
                const ReportEntry* with = on.at(ctx, n);
                const ReportEntry* without = off->at(ctx, n);
                if (!with || !without) continue;
                lines.push_back(on.model + " ctx " + std::to_string(ctx) + " N " +
                                std::to_string(n) + ": mode on: " + side(with) +
                                "; off: " + side(without));
            }
    }
    return lines;
}

}  // namespace bi::report
