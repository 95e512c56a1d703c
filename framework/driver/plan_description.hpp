// What --dry-run prints: the live plan as it would launch (binary, model, port, memory, every
// server argv, footprint and cert path per cell) and the C passes with a rough wall time.
// Nothing is launched; the memory figures are read now.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "run_plan.hpp"

namespace bi::driver {

// The plan of `plan` (which has its live part); lines end in '\n'.
std::string describe_live_plan(const RunPlan& plan);

// The C passes a cell will run and, when the work-set size `n_items` is known, a wall time per
// N that assumes a fixed time per generated token; lines end in '\n'.
std::string describe_passes(const RunPlan& plan, std::optional<std::size_t> n_items);

}  // namespace bi::driver
