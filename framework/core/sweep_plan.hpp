// A sweep's cells split into groups for many schedulers: the plan (groups of (model, ctx) with
// their N values, in a stable order), which groups one shard runs, and where the shard's index
// comes from (an explicit K/M or a scheduler's environment). Pure: the environment is passed in.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "run_request.hpp"

namespace bi::core {

inline constexpr const char* kPlanSchema = "bi-plan/2";

// One unit of work: every N of one (model, ctx), so arm A is run once for all of them.
struct PlanGroup {
    std::string model;                   // the certs' "model"
    std::optional<std::string> profile;  // the models.toml alias, when the model came from one
    std::int64_t ctx = 0;
    std::vector<int> parallels;  // ascending, each once
};

struct SweepPlan {
    std::string schema{kPlanSchema};
    std::string plan_id;  // "plan-" + 16 hex digits over everything else (io computes it)
    std::string out_dir;  // as given to `bi-run plan`; `sweep --out-dir` may override it
    // What every group runs with; its profile, ctxs, parallels and out_dir come from the group
    // and the plan instead.
    RunRequest request;
    std::vector<PlanGroup> groups;  // sorted by (model, ctx); index = position
};

// Sorts groups by (model, ctx) and each group's N ascending, so the same cells always give the
// same plan whatever order the options listed them in.
void sort_plan(SweepPlan& plan);

struct Shard {
    int index = 0;  // 0-based, < count
    int count = 1;
};

// The group indices a shard runs: i with i mod count == index, ascending.
std::vector<std::size_t> shard_groups(std::size_t n_groups, const Shard& shard);

// "K/M" with 0 <= K < M; nullopt when malformed or out of range.
std::optional<Shard> parse_shard(const std::string& text);

// Where a shard's index and count came from, for the log line.
struct ShardChoice {
    Shard shard;
    std::string source;  // "--shard", "Slurm array (SLURM_ARRAY_TASK_ID=3 ...)", ...
};

using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The shard a scheduler assigned through its environment, first match wins:
//   Slurm job array: SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, rebased by
//     SLURM_ARRAY_TASK_MIN (so --array=1-4 gives 0..3);
//   Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based), count from `shard_count`;
//   GitLab parallel: CI_NODE_INDEX (1-based), CI_NODE_TOTAL;
//   explicit (GitHub Actions matrix or anything else): BI_SHARD_INDEX (0-based), BI_SHARD_COUNT.
// `shard_count` (--shard-count) also overrides the count of the others. nullopt when none of
// them is set; bi::Error(Usage) naming the variable when one is set but malformed or the index
// falls outside the count.
std::optional<ShardChoice> shard_from_environment(const EnvLookup& env,
                                                  std::optional<int> shard_count);

}  // namespace bi::core
