// What --dry-run and plan-n print: the live plan as it would launch (binary, model, port, memory,
// every server argv, footprint and cert path per cell), the C passes with a rough wall time, and
// the footprint of N = 1..max_n. Nothing is launched; the memory figures are read now.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "core/run_request.hpp"
#include "run_plan.hpp"
#include "run_setup.hpp"
#include "server/model_facts.hpp"

namespace bi::driver {

// The plan of `plan` (which has its live part); lines end in '\n'.
std::string describe_live_plan(const RunPlan& plan);

// How long a request took in an earlier cert of one of the plan's cells: serially (arm A) and
// per round of N concurrent requests (arm C), for the wall-time estimate of a dry run.
struct MeasuredTimes {
    double serial_request_s = 0.0;
    double concurrent_round_s = 0.0;
    std::int64_t n_predict = 0;  // the earlier run's, to scale by this run's
    std::string cert;            // where they were read
};

// The times of the first cert among the plan's cells (in the out dir) that recorded them;
// nullopt when none did.
std::optional<MeasuredTimes> measured_times(const RunPlan& plan);

// The C passes a cell will run and, when the work-set size `n_items` is known, a wall time per
// N: from `measured` when an earlier cert gave it, else from an assumed time per generated token,
// said to be a guess; lines end in '\n'.
std::string describe_passes(const RunPlan& plan, std::optional<std::size_t> n_items,
                            const std::optional<MeasuredTimes>& measured = std::nullopt);

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

// What plan-n asks: the profile and target of `run` (binary, model, models.toml), the shape that
// stands for a model file not at hand, and the table's settings.
struct FootprintRequest {
    core::RunRequest run;
    ModelShape shape;
    std::int64_t ctx = 0;
    int max_n = 0;
    std::optional<std::string> kv_label;     // default: the target's
    std::optional<double> max_footprint_gb;  // footprint_cap(); absent: none
    std::optional<std::string> model_name;   // default: the model file
};

// plan-n's table for the target `request` names: bi::Error(Usage) naming the field for a ctx
// under 16, a max_n outside 1..1024, an unknown KV label, or what model_facts() lacks.
FootprintTable plan_footprints(const FootprintRequest& request);

}  // namespace bi::driver
