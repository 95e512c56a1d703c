// A sweep written down once and run in shards: the plan made from a request (one group per
// (model, ctx) with its N values), the request each group runs, and which shard this task is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/run_request.hpp"
#include "core/sweep_plan.hpp"
#include "run_setup.hpp"

namespace bi::driver {

// What a sweep request gives: the certs' model name (the models.toml alias, --model-alias or the
// model file's stem) and the ctx and N lists. Every field is checked on the way (plugins are
// loaded, the work-set read); the server binary and model files are not opened, since a plan
// may be written on another machine.
struct SweepCells {
    std::string model;
    std::vector<std::int64_t> ctxs;
    std::vector<int> parallels;
};
SweepCells sweep_cells(const core::RunRequest& request, const Invocation& invocation,
                       std::ostream& notes);

// The plan of `request` over `profiles` (one entry per models.toml alias, or one empty entry for
// the request's own target): groups sorted, the request stored without the members the groups
// and the plan give (profile, ctxs, parallels, out_dir). bi::Error(Usage) when two profiles
// give the same model name, so their certs would collide.
core::SweepPlan plan_sweep(const core::RunRequest& request,
                           const std::vector<std::optional<std::string>>& profiles,
                           const Invocation& invocation, std::ostream& notes);

// The request one group runs: the plan's, with the group's profile and cells, into `out_dir`.
core::RunRequest group_request(const core::SweepPlan& plan, const core::PlanGroup& group,
                               const std::string& out_dir);

// The shard this task runs: `shard` ("K/M"), else the scheduler's environment, else the whole
// plan; `shard_count` is --shard-count. bi::Error(Usage) naming the field or variable.
core::ShardChoice choose_shard(const std::optional<std::string>& shard,
                               std::optional<std::int64_t> shard_count, const core::EnvLookup& env);

// The profiles a plan covers: one per models.toml alias (`all_profiles`, from the models file
// `models_toml` names), one per name of a comma-separated --profile list, or one empty entry
// for the request's own target. bi::Error(Usage) naming the field for an empty name, a models
// file that is missing or has no models, both options at once, or a --model-alias given
// (`model_alias_given`) with several profiles.
std::vector<std::optional<std::string>> plan_profiles(const std::optional<std::string>& profiles,
                                                      bool all_profiles,
                                                      const std::optional<std::string>& models_toml,
                                                      bool model_alias_given);

// What a run of cells did: how many it ran and skipped, and whether every cell it answers for
// (run here or certified before) is a promotable GREEN, none of them with a CHANGED cache check.
struct SweepTally {
    bool all_promotable = true;
    std::size_t ran = 0;
    std::size_t done_before = 0;     // skipped: a cert with the same configuration was there
    std::size_t left_to_others = 0;  // skipped: another live bi-run holds the cell
};

// One shard's groups run in order, each by `run_group` with its request into `out_dir`. A group
// that throws bi::Error is noted on `notes` and counted in `failed_groups`, and the next group
// still runs; an interrupt (driver::Interrupted) ends the shard. A line per group and a closing
// tally go to `notes`.
struct ShardResult {
    SweepTally total;
    std::size_t failed_groups = 0;
};
using GroupRunner = std::function<SweepTally(const core::RunRequest&, const core::PlanGroup&)>;
ShardResult run_shard(const core::SweepPlan& plan, const core::ShardChoice& choice,
                      const std::string& out_dir, const GroupRunner& run_group,
                      std::ostream& notes);

// The process environment as an EnvLookup (unset and empty variables are absent).
core::EnvLookup process_environment();

}  // namespace bi::driver
