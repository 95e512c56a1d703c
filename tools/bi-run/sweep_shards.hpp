// Sharded sweeps: `bi-run plan` writes a sweep's groups to a plan file, and `bi-run sweep --plan`
// runs one shard of it (--shard K/M or a scheduler's environment) into a shared directory,
// skipping what is certified already, so array tasks, Indexed Jobs or CI matrix legs together
// produce the certs one sweep would.
#pragma once

#include <cxxopts.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/run_request.hpp"
#include "driver/sweep.hpp"
#include "option_aliases.hpp"

namespace bi::cli {

// sweep's other spellings (the upstream tool's), with --port, --experiment-port and --dry-run
// refused as plan refuses them.
std::vector<OptionAlias> plan_option_aliases();

// Every sweep option but the plan ones as a request (what a plan stores for its groups).
core::RunRequest sweep_request(const cxxopts::ParseResult& args);

// A planned group: its cells are resumed (skip certified, leave held ones, take over stale
// locks) and its model name must be the one the plan recorded.
struct ResumeMode {
    std::string model;
    std::chrono::seconds stale_lock_after{0};
};

using driver::SweepTally;

// How a run prints: what the command line says at run time, never stored in a plan.
struct CellsOutput {
    bool quiet = false;
    bool json = false;
    bool dry_run = false;
    std::string report_html;  // checked already; empty: none
    // --baseline FILE: arm A is checked against it as well (run-live and a sweep without
    // --plan); the keys it must be signed by when any are given (--trusted-key).
    std::string baseline;
    std::vector<std::string> baseline_keys;
};

// A whole sweep (or run-live's one cell) from a request, resumed when `resume` is given.
// Throws bi::Error for anything before a verdict.
SweepTally run_cells(const core::RunRequest& request, bool sweep, const CellsOutput& output,
                     const ResumeMode* resume);

// `bi-run sweep --plan FILE [--shard K/M]`: the groups of this shard, one sweep each.
int sweep_from_plan(const cxxopts::ParseResult& args);

}  // namespace bi::cli
