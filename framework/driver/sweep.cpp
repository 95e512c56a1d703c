#include "sweep.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <utility>

#include "core/error.hpp"
#include "core/request_field.hpp"
#include "core/text.hpp"
#include "interrupt.hpp"
#include "io/model_profile.hpp"
#include "io/plan_io.hpp"

namespace bi::driver {

using core::field_ref;
using F = core::RequestField;

namespace {

// A plan is run later and elsewhere (a shard, a batch job, another working directory): every
// path it keeps is made absolute when it is written. A bare name that is searched for (a
// plugin, a kind, a server binary on PATH) stays as given, and so does a model given by name
// where no such file exists.
std::string absolute(const std::string& path) {
    if (path.empty() || path == "-") return path;
    return std::filesystem::absolute(path).lexically_normal().string();
}

void make_absolute(std::optional<std::string>& path) {
    if (path) *path = absolute(*path);
}

void make_absolute_if_path(std::optional<std::string>& path) {
    if (path && path->find('/') != std::string::npos) *path = absolute(*path);
}

void absolute_paths(core::RunRequest& request) {
    for (auto& plugin : request.scoring.plugins)
        if (plugin.find('/') != std::string::npos) plugin = absolute(plugin);
    for (auto& dir : request.scoring.plugin_dirs) dir = absolute(dir);
    if (const auto& workset = request.scoring.workset) {
        // Every shard reads the plan's work-set again: a stream would be read once.
        struct stat st {};
        if (*workset == "-" || (::stat(workset->c_str(), &st) == 0 && !S_ISREG(st.st_mode)))
            usage_error(field_ref(F::Workset) + " " + *workset +
                        ": a plan's shards each read the work-set, so it must be a regular file, "
                        "not a stream");
    }
    make_absolute(request.scoring.workset);
    auto& target = request.target;
    make_absolute_if_path(target.server_bin);
    if (target.model && std::filesystem::exists(*target.model)) make_absolute(target.model);
    if (target.server_kind && (target.server_kind->find('/') != std::string::npos ||
                               std::filesystem::exists(*target.server_kind)))
        make_absolute(target.server_kind);
    for (auto& dir : target.server_kind_dirs) dir = absolute(dir);
    // The models file read by default ($BI_MODELS_TOML, else ./models.toml) is the plan's too.
    std::error_code ec;
    if (!target.models_toml && std::filesystem::is_regular_file(models_file_path({}), ec))
        target.models_toml = models_file_path({});
    make_absolute(target.models_toml);
    make_absolute(target.models_dir);
    make_absolute(request.sign_key);
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (;;) {
        const auto comma = text.find(',', start);
        parts.push_back(text.substr(start, comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return parts;
}

}  // namespace

SweepCells sweep_cells(const core::RunRequest& request, const Invocation& invocation,
                       std::ostream& notes) {
    check_cobatched_parallels(request);
    RunSetup setup = prepare_run(request, invocation, true, ProfileScope::ModelsFileFirst, notes);
    const auto target = resolve_target(request, setup.plugin_profile.empty());
    SweepCells cells{request.model_alias.value_or(target.alias), setup.plan.ctxs,
                     setup.plan.parallels};
    if (cells.model.empty())
        usage_error("the sweep names no model: give " + field_ref(F::Profile) + " ALIAS, " +
                    field_ref(F::Model) + " FILE or " + field_ref(F::ModelAlias));
    setup.plan.options.model_alias = cells.model;
    if (!request.model_alias) setup.plan.options.model_alias_from = target.alias_from;
    check_model_name(setup.plan.options);
    return cells;
}

core::SweepPlan plan_sweep(const core::RunRequest& request,
                           const std::vector<std::optional<std::string>>& profiles,
                           const Invocation& invocation, std::ostream& notes) {
    core::SweepPlan plan;
    plan.out_dir = absolute(request.out_dir);
    plan.request = request;
    absolute_paths(plan.request);
    plan.request.profile.reset();
    plan.request.ctxs = core::RunRequest{}.ctxs;
    plan.request.parallels = core::RunRequest{}.parallels;
    plan.request.out_dir.clear();
    std::map<std::pair<std::string, std::int64_t>, std::string> seen;
    for (const auto& profile : profiles) {
        core::RunRequest cell_request = request;
        cell_request.profile = profile;
        const auto cells = sweep_cells(cell_request, invocation, notes);
        const std::string from = profile ? field_ref(F::Profile) + " " + *profile : "the options";
        for (auto ctx : cells.ctxs) {
            const auto [it, fresh] = seen.emplace(std::make_pair(cells.model, ctx), from);
            if (!fresh)
                usage_error(from + " and " + it->second + " both give model " + cells.model +
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
            usage_error(field_ref(F::ShardCount) + " must be between 1 and 1000000");
        count = static_cast<int>(*shard_count);
    }
    if (shard) {
        const auto parsed = core::parse_shard(*shard);
        const std::string given = field_ref(F::Shard) + " " + *shard;
        if (!parsed) usage_error(given + ": expected K/M with 0 <= K < M, e.g. 0/4");
        if (count && *count != parsed->count)
            usage_error(given + " and " + field_ref(F::ShardCount) + " " + std::to_string(*count) +
                        " disagree");
        return {*parsed, given};
    }
    if (auto from_env = core::shard_from_environment(env, count)) return *from_env;
    if (count)
        usage_error(field_ref(F::ShardCount) + " " + std::to_string(*count) +
                    " needs an index: JOB_COMPLETION_INDEX, BI_SHARD_INDEX or " +
                    field_ref(F::Shard) + " K/M");
    return {{0, 1}, "no " + field_ref(F::Shard) + " and no scheduler variables: the whole plan"};
}

core::EnvLookup process_environment() {
    return [](const std::string& name) -> std::optional<std::string> {
        const char* value = std::getenv(name.c_str());
        if (!value || !*value) return std::nullopt;
        return std::string(value);
    };
}

std::vector<std::optional<std::string>> plan_profiles(const std::optional<std::string>& profiles,
                                                      bool all_profiles,
                                                      const std::optional<std::string>& models_toml,
                                                      bool model_alias_given) {
    std::vector<std::optional<std::string>> chosen;
    if (all_profiles) {
        if (profiles)
            usage_error(field_ref(F::AllProfiles) + " and " + field_ref(F::Profile) +
                        " cannot be used together");
        const std::string file = models_file_path(models_toml);
        if (!std::filesystem::exists(file))
            usage_error(field_ref(F::AllProfiles) + " needs a models file: " + file +
                        " not found (see " + field_ref(F::ModelsToml) + ")");
        for (const auto& alias : io::list_models(file).aliases) chosen.emplace_back(alias);
        if (chosen.empty())
            usage_error(field_ref(F::AllProfiles) + ": " + file + " defines no [[models]]");
    } else if (profiles) {
        for (const auto& name : split_commas(*profiles)) {
            if (name.empty()) usage_error(field_ref(F::Profile) + ": an empty name in the list");
            chosen.emplace_back(name);
        }
    } else {
        chosen.emplace_back();
    }
    if (chosen.size() > 1 && model_alias_given)
        usage_error(field_ref(F::ModelAlias) +
                    " names one model; with several profiles each alias is its name");
    return chosen;
}

ShardResult run_shard(const core::SweepPlan& plan, const core::ShardChoice& choice,
                      const std::string& out_dir, const GroupRunner& run_group,
                      std::ostream& notes) {
    const auto mine = core::shard_groups(plan.groups.size(), choice.shard);
    notes << "bi-run sweep: " << plan.plan_id << ", shard " << choice.shard.index << "/"
          << choice.shard.count << " (" << choice.source << "): " << mine.size() << " of "
          << plan.groups.size() << " group(s)";
    for (std::size_t i = 0; i < mine.size(); ++i) notes << (i ? ", " : " ") << mine[i];
    notes << "; certs in " << out_dir << std::endl;
    ShardResult result;
    for (const auto index : mine) {
        const auto& group = plan.groups[index];
        notes << "bi-run sweep: group " << index << ": " << group.model << " ctx " << group.ctx
              << " N " << core::join(group.parallels, ",") << std::endl;
        try {
            const SweepTally run = run_group(group_request(plan, group, out_dir), group);
            result.total.ran += run.ran;
            result.total.done_before += run.done_before;
            result.total.left_to_others += run.left_to_others;
            result.total.all_promotable &= run.all_promotable;
        } catch (const Interrupted&) {
            throw;
        } catch (const Error& e) {
            ++result.failed_groups;
            notes << "bi-run sweep: group " << index << " (" << group.model << " ctx " << group.ctx
                  << ") failed: " << without_bi_prefix(e.what()) << std::endl;
        }
    }
    notes << "bi-run sweep: shard " << choice.shard.index << "/" << choice.shard.count
          << " done: " << result.total.ran << " cell(s) run, " << result.total.done_before
          << " certified before, " << result.total.left_to_others << " left to other tasks, "
          << result.failed_groups << " group(s) failed" << std::endl;
    return result;
}

}  // namespace bi::driver
