// One item of an expanded work-set: what is sent, and what a correct answer looks like.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "json.hpp"

namespace bi::core {

// A work-set row as read from a file or emitted by a generator plugin (docs/design.md §8).
struct WorkRow {
    std::string prompt;
    std::string system;  // empty: no system message
    std::string family;
    double fill = 0.0;
    Json expected_answer;
};

struct WorkItem {
    std::string test_id;  // "{model}|{ctx}|{family}|{position:.6f}|{rep}|fill{fill:.2f}"
    std::string prompt;
    std::string system;
    std::string family;
    double fill = 0.0;
    Json expected_answer;
    std::uint64_t seed = 0;  // derived from test_id
    int rep = 0;
};

// Expands rows by `reps` into items with stable test_ids and seeds; pure and deterministic.
std::vector<WorkItem> expand_work_rows(const std::vector<WorkRow>& rows, const std::string& model,
                                       std::int64_t ctx, int reps);

}  // namespace bi::core
