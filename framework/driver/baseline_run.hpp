// bi-run baseline record and check (docs/baseline.md): arm A and A' on a one-slot server, kept
// as a signed baseline file, or compared with one recorded before, on another build, backend or
// host. The runs are a cell's serial arms (CellRunner::run_serial), nothing more.
#pragma once

#include <string>
#include <vector>

#include "core/baseline_documents.hpp"
#include "progress.hpp"
#include "run_plan.hpp"
#include "run_setup.hpp"
#include "trust/signing.hpp"

namespace bi::driver {

// Reads the baseline a run is checked against, judged as every reader judges a file
// (trust::judge). bi::Error(Usage) when `path` is missing or not a regular file;
// bi::Error(Trust), naming the file, when it is not a well-formed bi-baseline/1 document, its
// digest does not match its content, its signature is malformed or does not verify, or, when
// `trusted` holds keys, it is not signed by one of them.
StoredBaseline load_baseline(const std::string& path, trust::TrustedKeys trusted);

struct RecordOutcome {
    core::SerialBaseline baseline;  // as written, digest and signature included
    std::string path;
    std::vector<std::string> problems;  // why it cannot stand as a reference; empty when it can
};

// Runs A and A' for the plan's one ctx and writes the baseline to `path` atomically (signed with
// the plan's key). An existing file is replaced only with `replace`; without it the run is
// refused before anything launches. The server log goes beside it (`path` + ".server.log").
RecordOutcome record_baseline(const RunPlan& plan, plugin_host::ScorerInstance& scorer,
                              const WorkRowSource& rows, Progress& progress,
                              const std::string& path, bool replace);

struct CheckOutcome {
    core::BaselineCheck check;
    std::string path;
};

// Runs A and A' on the plan's server with the stored rows, compares with `stored` and writes the
// check report to `path` atomically (signed with the plan's key), replacing an earlier one. The
// server log goes beside it.
CheckOutcome check_baseline(const RunPlan& plan, plugin_host::ScorerInstance& scorer,
                            Progress& progress, const StoredBaseline& stored,
                            const std::string& path);

// The stored rows as a work-row source: a check runs exactly what the baseline ran.
WorkRowSource stored_rows(const core::SerialBaseline& baseline);

// The settings a baseline's answers depend on, as a run sets them: what a check reruns and what a
// run checked against the baseline must match.
struct BaselineSettings {
    std::string model;  // the model name the test ids carry
    std::vector<std::int64_t> ctxs;
    std::int64_t reps = 1;
    std::int64_t n_predict = 0;
    core::EndpointKind endpoint = core::EndpointKind::Chat;
    std::int64_t logprobs = 0;
    std::optional<std::string> scorer;
    std::optional<std::string> scorer_config;
    double logit_drift_eps = 0.0;
};

// What `baseline` (read from `file`) ran. bi::Error(Trust) naming the file when its endpoint is
// none this bi-run sends to.
BaselineSettings baseline_settings(const core::SerialBaseline& baseline, const std::string& file);

// What a prepared run will run.
BaselineSettings run_settings(const RunPlan& plan);

// Each setting in which `run` differs from `recorded`, as "n-predict 32 (this run: 9)"; a
// recorded ctx must be among the run's.
std::vector<std::string> setting_differences(const BaselineSettings& recorded,
                                             const BaselineSettings& run);

// The request that reruns what `baseline` ran (baseline check): `base` (target, limits, output,
// plugins) with the baseline's settings, its seed, and its KV label unless `base` names one or
// the server flags set the cache type.
core::RunRequest request_from_baseline(const core::SerialBaseline& baseline,
                                       const std::string& file, core::RunRequest base);

// run-live --baseline: makes `setup`'s run check its arm A against `stored` at the baseline's
// ctx. The run's settings must be the baseline's (model name, a ctx of the run, reps, n_predict,
// endpoint, logprobs, scorer and its config, logit drift threshold): bi::Error(Usage) naming
// every one that is not, before anything launches. A run given no work-set of its own (no
// --workset, --generator or measurement profile) runs the stored rows.
void attach_baseline(RunSetup& setup, const core::RunRequest& request, StoredBaseline stored);

}  // namespace bi::driver
