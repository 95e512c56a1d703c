// A plan for a cell or a sweep, resolved and checked before anything launches: the target, the
// guards over every ctx x N, footprints, launcher configs, log and cert paths. run_cells() (for
// run-mock, run-live and sweep) and selftest plan a request and share run_plan().
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cell_runner.hpp"
#include "core/request_field.hpp"
#include "io/files.hpp"
#include "live_launcher.hpp"
#include "server/gpu_memory.hpp"
#include "server/guards.hpp"
#include "server/model_facts.hpp"

namespace bi::mock {
struct MockConfig;
}

namespace bi::driver {

// The output directory's cache of whole-file model hashes, keyed by (path, size, mtime).
inline constexpr const char* kHashCacheName = ".bi-hash-cache";  // not *.json: report skips it

// Where the server binary, model, flags and KV label come from (options or models.toml).
struct LiveTarget {
    std::string server_bin;
    std::string model;
    std::string alias;  // the model's name when --model-alias is not given
    std::string kv;     // the KV label (models.toml `kv`, else f16)
    std::vector<std::string> flags;
    std::string server_kind;    // a kind's name or kind file; empty: llama-server
    bool kv_given = false;      // models.toml gave `kv`
    bool cache_arm = false;     // models.toml `cache_arm`: run the cache arm as --cache-arm does
    std::string determinism{};  // models.toml `determinism`, when --determinism is not given
    core::RequestField alias_from = core::RequestField::Model;  // what named `alias`
};

// The live half of a plan.
struct LivePlan {
    LiveTarget target;
    std::string kv_types;  // the cache's K/V types the footprint projects ("q8_0/f16")
    server::ModelFacts facts;
    server::GuardLimits limits;
    std::optional<std::uint16_t> port;  // absent: a free loopback port per launch
    std::chrono::milliseconds ready_timeout = std::chrono::minutes(10);
    std::chrono::milliseconds grace = std::chrono::seconds(10);
    std::optional<server::GpuMemory> gpu;  // checked by plan_live when the flags offload layers
    std::string gpu_selection;  // how those GPUs were chosen (CUDA_VISIBLE_DEVICES, --device...)
    std::vector<std::string> kind_dirs;  // --server-kind-dir, searched for a bare kind name
    core::ServerKind kind;  // resolved by plan_live from target.server_kind unless given
    std::string kind_how;   // no kind was named: how it was chosen ("by the binary's name")
};

// A stored baseline as a run reads it (baseline_run.hpp loads one): its value and its file.
struct StoredBaseline {
    core::SerialBaseline value;
    core::BaselineFileRecord file;
};

struct RunPlan {
    RunOptions options;
    std::vector<std::int64_t> ctxs;  // one value except for a sweep
    std::vector<int> parallels;
    std::optional<LivePlan> live;                  // run-live, sweep, selftest
    std::shared_ptr<const mock::MockConfig> mock;  // run-mock: the in-process mock
    std::optional<std::string> log_file;           // replaces the per-ctx server log name
    // A sweep from a plan file, sharded over tasks that share out_dir: a cell whose cert already
    // answers it (check_existing_cert) is skipped, a cell another live bi-run holds is left to
    // it, and a stale lock (io::lock_staleness) is taken over, each with a message, instead of
    // refusing the run.
    bool resume = false;
    std::chrono::seconds stale_lock_after = io::kDefaultStaleLockAfter;
    // run-live --baseline: the arm A of the baseline's ctx is checked against it, the check
    // report written to check_path() and summarised in that ctx's certs.
    std::shared_ptr<const StoredBaseline> baseline;
    // The field that named the output directory, for messages (the baseline file for a
    // baseline run).
    core::RequestField out_option = core::RequestField::OutDir;

    std::string cert_path(std::int64_t ctx, int parallel) const;
    std::string check_path(std::int64_t ctx) const;
    std::string log_path(std::int64_t ctx) const;
    LiveServerConfig launcher_config(std::int64_t ctx) const;           // requires `live`
    server::Footprint footprint(std::int64_t ctx, int parallel) const;  // requires `live`
};

// Checks the target (binary, model, user flags, port) and the footprint of every ctx x N of the
// plan against MemAvailable and the cap (projected with the KV label the cert will name), and,
// when the flags offload layers and nvidia-smi answers, its GPU part against free GPU memory, then
// fills in what the target decides: the model alias unless `alias_given`, the KV label unless
// `kv_label_given`, the server flags and model file record. Throws bi::Error(Usage/Guard) naming
// what is wrong; launches nothing.
void plan_live(RunPlan& plan, LivePlan live, bool alias_given,
               const std::optional<std::string>& kv_label_given);

// Refuses (bi::Error(Usage)) a KV label that is not a llama.cpp cache type, and a model name that
// is not plain (core::model_name_problem), naming the option the name came from.
void check_cell_names(const RunOptions& options);
// The model name's half of check_cell_names.
void check_model_name(const RunOptions& options);

// Locks every file in `targets` for as long as the locks live, so a second run writing one is
// refused (bi::Error(Usage) naming the file and its holder) instead of racing for it; a stale
// lock is taken over, with a notice. Taking them also proves that the directories take files.
std::vector<std::unique_ptr<io::FileLock>> lock_outputs(const RunPlan& plan,
                                                        const std::vector<std::string>& targets,
                                                        Progress& progress);

// Fills in the model's whole-file sha256 (a directory's manifest hash), from the output
// directory's hash cache when the file has not changed since it was hashed there.
void hash_model(RunOptions& options, Progress& progress);

// The launcher of the plan's server (the live target, or the in-process mock) at `ctx`.
std::unique_ptr<ServerLauncher> make_launcher(const RunPlan& plan, std::int64_t ctx);

struct CellResult {
    std::int64_t ctx = 0;
    int parallel = 0;
    CellOutcome outcome;
};

// A cell a resumed plan did not run: its cert answers it already, or another task holds it.
struct SkippedCell {
    std::int64_t ctx = 0;
    int parallel = 0;
    bool done = false;        // a reusable cert is there; else another live bi-run holds it
    bool promotable = false;  // the reusable cert's promotion
    std::string reason;
};

// Runs every cell of the plan (hashing the model first, through the output directory's hash
// cache): one shared run of A and A' per ctx (checked against plan.baseline at its ctx), then B
// and C for each N, calling
// `on_cell` after each cert is written (and, when plan.resume, `on_skip` for each cell left
// out; a ctx with nothing left to run launches no server). Throws (writing no cert for the cell
// in progress) when a server dies, a signal arrives or anything else ends the run.
std::vector<CellResult> run_plan(const RunPlan& plan, plugin_host::ScorerInstance& scorer,
                                 const WorkRowSource& rows, Progress& progress,
                                 const std::function<void(const CellResult&)>& on_cell = {},
                                 const std::function<void(const SkippedCell&)>& on_skip = {});

}  // namespace bi::driver
