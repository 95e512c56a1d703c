#include "baseline_commands.hpp"

#include <filesystem>
#include <utility>

#include "core/baseline_documents.hpp"
#include "interrupt.hpp"
#include "plan_description.hpp"
#include "progress.hpp"

namespace bi::driver {

namespace {

namespace fs = std::filesystem;

std::string parent_dir(const std::string& path) {
    const fs::path p(path);
    return p.has_parent_path() ? p.parent_path().string() : ".";
}

// Plugins, scorer, work-set and target of a one-slot run: a baseline is the serial arms only.
RunSetup prepared(core::RunRequest request, const CellsOptions& options) {
    request.parallels = {1};
    auto setup = prepare_run(request, options.invocation, false, ProfileScope::ModelsFileFirst,
                             *options.notes);
    setup.quiet = options.quiet;
    setup.json = options.json;
    plan_from_request(request, setup);
    return setup;
}

// The stored rows in place of the request's work-set: a check sends exactly what was recorded.
void send_stored_rows(const StoredBaseline& stored, RunSetup& setup) {
    setup.rows = stored_rows(stored.value);
    auto& labels = setup.plan.options.run_labels;
    labels.workset = "(the rows of baseline " + stored.file.path + ")";
    labels.generator.reset();
    labels.generator_params.reset();
}

}  // namespace

std::optional<StoredBaseline> stored_baseline(const CellsOptions& options) {
    if (options.baseline.empty()) return std::nullopt;
    trust::TrustedKeys keys;
    for (const auto& key : options.baseline_keys) keys.add(key);
    return load_baseline(options.baseline, std::move(keys));
}

std::optional<RecordOutcome> run_baseline_record(core::RunRequest request,
                                                 const std::optional<std::string>& out,
                                                 bool replace, const CellsOptions& options,
                                                 const CellHooks& hooks) {
    request.out_dir = out ? parent_dir(*out) : "baselines";
    const auto setup = prepared(request, options);
    const std::string path =
        out ? *out
            : "baselines/" +
                  core::baseline_file_name(setup.plan.options.model_alias, request.ctxs.at(0));
    if (options.dry_run) {
        if (hooks.dry_run_plan)
            hooks.dry_run_plan(describe_live_plan(setup.plan) + "baseline: " + path + "\n");
        return std::nullopt;
    }
    install_interrupt_handlers();
    Progress progress(Progress::detect(setup.quiet), *options.notes);
    return record_baseline(setup.plan, *setup.scorer, setup.rows, progress, path, replace);
}

std::optional<CheckOutcome> run_baseline_check(core::RunRequest base,
                                               const std::optional<std::string>& out,
                                               const CellsOptions& options,
                                               const CellHooks& hooks) {
    const auto stored = stored_baseline(options).value();
    const auto& b = stored.value;
    const std::string path = out.value_or(
        (fs::path(parent_dir(stored.file.path)) / core::check_file_name(b.model, b.ctx)).string());
    base.out_dir = parent_dir(path);
    const auto request = request_from_baseline(b, stored.file.path, std::move(base));
    auto setup = prepared(request, options);
    send_stored_rows(stored, setup);
    if (options.dry_run) {
        if (hooks.dry_run_plan)
            hooks.dry_run_plan(describe_live_plan(setup.plan) + "baseline: " + stored.file.path +
                               " (" + stored.file.signature + ")\ncheck: " + path + "\n");
        return std::nullopt;
    }
    install_interrupt_handlers();
    Progress progress(Progress::detect(setup.quiet), *options.notes);
    return check_baseline(setup.plan, *setup.scorer, progress, stored, path);
}

}  // namespace bi::driver
