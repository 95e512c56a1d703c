// Work-set expansion: rows x reps -> items with test_ids and seeds that never depend on the
// machine, the locale or the run.
#include "work_item.hpp"

#include "error.hpp"
#include "sha256.hpp"
#include "text.hpp"

namespace bi::core {

namespace {

// The first 8 bytes of sha256(test_id), big-endian: stable across platforms and runs.
std::uint64_t seed_of(const std::string& test_id) {
    const auto digest = Sha256().update(test_id).digest();
    std::uint64_t seed = 0;
    for (int i = 0; i < 8; ++i) seed = (seed << 8) | digest[static_cast<std::size_t>(i)];
    return seed;
}

}  // namespace

std::vector<WorkItem> expand_work_rows(const std::vector<WorkRow>& rows, const std::string& model,
                                       std::int64_t ctx, int reps) {
    if (reps < 1)
        throw Error(ErrorCategory::Usage, "reps must be at least 1, got " + std::to_string(reps));
    std::vector<WorkItem> items;
    items.reserve(rows.size() * static_cast<std::size_t>(reps));
    const double slots = static_cast<double>(rows.size() + 1);
    for (int rep = 0; rep < reps; ++rep) {
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const WorkRow& row = rows[i];
            WorkItem item;
            item.test_id = model + "|" + std::to_string(ctx) + "|" + row.family + "|" +
                           format_fixed(static_cast<double>(i + 1) / slots, 6) + "|" +
                           std::to_string(rep) + "|fill" + format_fixed(row.fill, 2);
            item.prompt = row.prompt;
            item.system = row.system;
            item.family = row.family;
            item.fill = row.fill;
            item.expected_answer = row.expected_answer;
            item.seed = seed_of(item.test_id);
            item.rep = rep;
            items.push_back(std::move(item));
        }
    }
    return items;
}

}  // namespace bi::core
