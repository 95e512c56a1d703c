// What --dry-run prints: the live plan as it would launch (binary, model, port, memory, every
// server argv, footprint and cert path per cell) and the C passes with a rough wall time.
// Nothing is launched; the memory figures are read now.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "run_plan.hpp"
#include "server/model_facts.hpp"

namespace bi::driver {

// The plan of `plan` (which has its live part); lines end in '\n'.
std::string describe_live_plan(const RunPlan& plan);

// The C passes a cell will run and, when the work-set size `n_items` is known, a wall time per
// N that assumes a fixed time per generated token; lines end in '\n'.
std::string describe_passes(const RunPlan& plan, std::optional<std::size_t> n_items);

// plan-n's table: a heading (the model, its shape, the KV type, MemAvailable), then per N =
// 1..max_n the projected model, KV, overhead and total at `ctx` tokens per slot and whether it
// fits under MemAvailable and `cap_gib`, then the largest N that fits (0: none).
struct FootprintTable {
    std::string text;  // lines end in '\n'
    int largest_fit = 0;
};
FootprintTable footprint_table(const server::ModelFacts& facts, const std::string& model_name,
                               std::int64_t ctx, int max_n, const std::string& kv,
                               std::optional<double> cap_gib);

}  // namespace bi::driver
