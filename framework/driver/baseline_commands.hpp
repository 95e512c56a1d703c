// baseline record and baseline check as one call each (docs/baseline.md): a request planned on a
// one-slot server, described for a dry run, or run and written, as run_cells runs a cell.
#pragma once

#include <optional>
#include <string>

#include "baseline_run.hpp"
#include "core/run_request.hpp"
#include "run_cells.hpp"

namespace bi::driver {

// The baseline options.baseline names, signed by one of options.baseline_keys when any are given
// (load_baseline); nullopt when none is named.
std::optional<StoredBaseline> stored_baseline(const CellsOptions& options);

// Records the serial arms of `request` (its one ctx) to `out`, else to
// baselines/MODEL__ctxCTX.baseline.json, replacing a file there only with `replace`. A dry run
// hands its plan to hooks.dry_run_plan and returns nullopt.
std::optional<RecordOutcome> run_baseline_record(core::RunRequest request,
                                                 const std::optional<std::string>& out,
                                                 bool replace, const CellsOptions& options,
                                                 const CellHooks& hooks);

// Reruns what the baseline options.baseline names ran (request_from_baseline over `base`: its
// target, limits, plugins and signing key) and compares the answers with it; the check report
// goes to `out`, else beside the baseline. A dry run hands its plan to hooks.dry_run_plan and
// returns nullopt.
std::optional<CheckOutcome> run_baseline_check(core::RunRequest base,
                                               const std::optional<std::string>& out,
                                               const CellsOptions& options, const CellHooks& hooks);

}  // namespace bi::driver
