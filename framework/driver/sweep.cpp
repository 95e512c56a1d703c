#include "sweep.hpp"

#include <cstdlib>
#include <map>
#include <utility>

#include "core/error.hpp"
#include "io/plan_io.hpp"

namespace bi::driver {

namespace {

[[noreturn]] void usage(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

}  // namespace

SweepCells sweep_cells(const core::RunRequest& request, const Invocation& invocation,
                       std::ostream& notes) {
    RunSetup setup = prepare_run(request, invocation, true, ProfileScope::ModelsFileFirst, notes);
    const auto target = resolve_target(request, setup.plugin_profile.empty());
    SweepCells cells{request.model_alias.value_or(target.alias), setup.plan.ctxs,
                     setup.plan.parallels};
    if (cells.model.empty())
        usage("the sweep names no model: give --profile ALIAS, --model FILE or --model-alias");
    setup.plan.options.model_alias = cells.model;
    check_cell_names(setup.plan.options);
    return cells;
}

core::SweepPlan plan_sweep(const core::RunRequest& request,
                           const std::vector<std::optional<std::string>>& profiles,
                           const Invocation& invocation, std::ostream& notes) {
    core::SweepPlan plan;
    plan.out_dir = request.out_dir;
    plan.request = request;
    plan.request.profile.reset();
    plan.request.ctxs = core::RunRequest{}.ctxs;
    plan.request.parallels = core::RunRequest{}.parallels;
    plan.request.out_dir.clear();
    std::map<std::pair<std::string, std::int64_t>, std::string> seen;
    for (const auto& profile : profiles) {
        core::RunRequest cell_request = request;
        cell_request.profile = profile;
        const auto cells = sweep_cells(cell_request, invocation, notes);
        const std::string from = profile ? "--profile " + *profile : "the options";
        for (auto ctx : cells.ctxs) {
            const auto [it, fresh] = seen.emplace(std::make_pair(cells.model, ctx), from);
            if (!fresh)
                usage(from + " and " + it->second + " both give model " + cells.model +
                      ": their certs would have the same names");
            plan.groups.push_back({cells.model, profile, ctx, cells.parallels});
        }
    }
    core::sort_plan(plan);
    plan.plan_id = io::plan_id(plan);
    return plan;
}

core::RunRequest group_request(const core::SweepPlan& plan, const core::PlanGroup& group,
                               const std::string& out_dir) {
    core::RunRequest request = plan.request;
    request.profile = group.profile;
    request.ctxs = {group.ctx};
    request.parallels.assign(group.parallels.begin(), group.parallels.end());
    request.out_dir = out_dir;
    return request;
}

core::ShardChoice choose_shard(const std::optional<std::string>& shard,
                               std::optional<std::int64_t> shard_count,
                               const core::EnvLookup& env) {
    std::optional<int> count;
    if (shard_count) {
        if (*shard_count < 1 || *shard_count > 1000000)
            usage("--shard-count must be between 1 and 1000000");
        count = static_cast<int>(*shard_count);
    }
    if (shard) {
        const auto parsed = core::parse_shard(*shard);
        if (!parsed) usage("--shard " + *shard + ": expected K/M with 0 <= K < M, e.g. 0/4");
        if (count && *count != parsed->count)
            usage("--shard " + *shard + " and --shard-count " + std::to_string(*count) +
                  " disagree");
        return {*parsed, "--shard " + *shard};
    }
    if (auto from_env = core::shard_from_environment(env, count)) return *from_env;
    if (count)
        usage("--shard-count " + std::to_string(*count) +
              " needs an index: JOB_COMPLETION_INDEX, BI_SHARD_INDEX or --shard K/M");
    return {{0, 1}, "no --shard and no scheduler variables: the whole plan"};
}

core::EnvLookup process_environment() {
    return [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        if (!value || !*value) return std::nullopt;
        return std::string(value);
    };
}

}  // namespace bi::driver
