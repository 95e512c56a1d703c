#include "composition.hpp"

#include <algorithm>

namespace bi::core {

std::map<std::string, Composition> pass_compositions(const ArmResults& pass) {
    std::vector<std::pair<const std::string*, const TrialRecord*>> timed;
    for (const auto& [id, record] : pass)
        if (record.has_interval()) timed.emplace_back(&id, &record);
    std::map<std::string, Composition> compositions;
    for (const auto& [id, record] : timed) {
        Composition& neighbours = compositions[*id];
        for (const auto& [other_id, other] : timed) {
            if (other_id == id) continue;
            if (*other->dispatch_ns < *record->complete_ns &&
                *record->dispatch_ns < *other->complete_ns)
                neighbours.push_back(*other_id);
        }
        // ArmResults iterates in id order, so the neighbours are sorted already.
    }
    return compositions;
}

CompositionCount count_compositions(const std::vector<ArmResults>& passes,
                                    const std::vector<std::set<std::string>>& proven) {
    CompositionCount count;
    std::map<std::string, std::set<Composition>> seen;
    for (std::size_t t = 0; t < passes.size(); ++t) {
        std::vector<std::string>& counted = count.counted_ids.emplace_back();
        if (t >= proven.size()) continue;
        for (const auto& [id, composition] : pass_compositions(passes[t])) {
            if (!proven[t].count(id)) continue;
            if (!seen[id].insert(composition).second) continue;
            counted.push_back(id);
            ++count.distinct_per_id[id];
            ++count.n_counted;
        }
    }
    return count;
}

}  // namespace bi::core
