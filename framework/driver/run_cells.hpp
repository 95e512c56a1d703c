// One call runs the cells a request asks for (run-mock, run-live, a sweep, one group of a planned
// sweep): prepared, planned, checked against a baseline, run, and told to the caller through
// hooks. The command line only parses, prints what the hooks hand it and picks the exit status.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/run_request.hpp"
#include "report/run_summary.hpp"
#include "run_plan.hpp"
#include "run_setup.hpp"
#include "sweep.hpp"

namespace bi::driver {

// A planned group: its cells are resumed (skip certified, leave held ones, take over stale
// locks) and its model name must be the one the plan recorded.
struct ResumeMode {
    std::string model;
    std::chrono::seconds stale_lock_after{0};
};

// How a run runs: what the command line says at run time, never stored in a plan.
struct CellsOptions {
    Invocation invocation;          // recorded in every cert
    std::ostream* notes = nullptr;  // prepare_run's notes and the progress lines; required
    bool sweep = false;             // --ctx and --parallel may list several values
    ProfileScope profile_scope = ProfileScope::ModelsFileFirst;
    bool quiet = false;
    bool json = false;
    bool dry_run = false;     // describe the plan through the hooks and launch nothing
    std::string report_html;  // the HTML report of the run's certs goes here; empty: none
    // A stored baseline arm A is checked against, and the keys it must be signed by when any
    // are given; empty: none.
    std::string baseline;
    std::vector<std::string> baseline_keys;
    std::optional<ResumeMode> resume;
    // The in-process mock as every cell's server (seeded with the run's seed); null: the live
    // target the request names.
    std::shared_ptr<const mock::MockConfig> mock;
};

// What the caller is told, each when it happens; any may be empty.
struct CellHooks {
    std::function<void(const RunSetup&)> prepared;           // plugins loaded, nothing launched
    std::function<void(const std::string&)> dry_run_plan;    // the whole plan text of a dry run
    std::function<void(const CellResult&)> cell_decided;     // each cert written, in run order
    std::function<void(const SkippedCell&)> cell_skipped;    // a resumed cell left out
    std::function<void(const std::string&)> report_written;  // the HTML report's path
    // A sweep's closing rows, cells run then cells skipped, for the model they certify.
    std::function<void(const std::string&, const std::vector<report::SweepRow>&)> sweep_rows;
    // Then the recommendation lines from the certs the sweep wrote (report/recommendation.hpp);
    // empty when nothing qualifies.
    std::function<void(const std::vector<std::string>&)> sweep_recommendation;
};

struct CellsRun {
    SweepTally tally;
    std::vector<CellResult> results;  // in run order; none for a dry run
};

// Runs every cell of `request`. A baseline that cannot be trusted is refused before plugins
// load; a resumed group whose model is not the plan's is refused before anything launches.
// Throws bi::Error for anything before a verdict (cells already decided keep their certs) and
// driver::Interrupted when a signal ends the run.
CellsRun run_cells(const core::RunRequest& request, const CellsOptions& options,
                   const CellHooks& hooks);

}  // namespace bi::driver
