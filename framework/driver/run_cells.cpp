#include "run_cells.hpp"

#include <utility>

#include "baseline_commands.hpp"
#include "core/baseline_documents.hpp"
#include "core/error.hpp"
#include "interrupt.hpp"
#include "io/files.hpp"
#include "mock/mock_config.hpp"
#include "plan_description.hpp"
#include "progress.hpp"
#include "report/recommendation.hpp"
#include "report/report_html.hpp"
#include "report/report_model.hpp"
#include "report/throughput_text.hpp"
#include "report/verdict_headline.hpp"

namespace bi::driver {

namespace {

// The plan a run would launch, as --dry-run prints it.
std::string dry_run_text(const RunSetup& setup) {
    std::string text =
        describe_live_plan(setup.plan) +
        describe_passes(setup.plan, work_set_size(setup), measured_times(setup.plan));
    if (const auto& b = setup.plan.baseline)
        text += "baseline check: arm A at ctx " + std::to_string(b->value.ctx) + " against " +
                b->file.path + " (" + b->file.signature + "), report " +
                setup.plan.check_path(b->value.ctx) + "\n";
    return text;
}

// The server every cell runs on: the in-process mock, or the live target the request names.
void plan_server(const core::RunRequest& request, const CellsOptions& options, RunSetup& setup) {
    if (!options.mock) {
        plan_from_request(request, setup);
        return;
    }
    if (request.determinism && *request.determinism != core::DeterminismChoice::Off)
        usage_error(core::field_ref(core::RequestField::Determinism) + " " +
                    std::string(core::name(*request.determinism)) +
                    ": the mock has no determinism mode");
    auto mock = *options.mock;
    mock.seed = setup.plan.options.seed;  // the run's seed also seeds the stochastic coin
    // The mock stands in for llama-server, whose prefill chunk is its micro-batch.
    if (const auto chunk = setup.plan.options.prefill_chunk)
        mock.prompt_tokens_per_step = static_cast<int>(*chunk);
    setup.plan.mock = std::make_shared<const mock::MockConfig>(mock);
}

void resume_plan(const ResumeMode& resume, RunPlan& plan) {
    if (plan.options.model_alias != resume.model)
        usage_error("the plan's group names model " + resume.model + " but its options give " +
                    plan.options.model_alias + " here (another models.toml?)");
    plan.resume = true;
    plan.stale_lock_after = resume.stale_lock_after;
}

// The page `bi-run report --html` would write for the certs this run wrote.
void write_report_html(const std::vector<CellResult>& results, const std::string& path) {
    std::vector<std::string> certs;
    certs.reserve(results.size());
    for (const auto& cell : results) certs.push_back(cell.outcome.cert_path);
    io::write_file_atomically(path, report::render_html(report::load_report(certs)));
}

// The recommendation `bi-run report` would end with for the certs this run wrote.
std::vector<std::string> recommendation_of(const std::vector<CellResult>& results) {
    std::vector<std::string> certs;
    certs.reserve(results.size());
    for (const auto& cell : results) certs.push_back(cell.outcome.cert_path);
    return report::recommendation_lines(report::model_grids(report::load_report(certs)));
}

// The closing table's rows: every cell run, with its headline, then every cell skipped.
std::vector<report::SweepRow> sweep_rows(const std::vector<CellResult>& results,
                                         const std::vector<SkippedCell>& skipped) {
    std::vector<report::SweepRow> rows;
    for (const auto& cell : results) {
        const auto& v = cell.outcome.verdict;
        rows.push_back({cell.ctx, cell.parallel,
                        report::verdict_headline(v.status, v.divergence_class, v.anomaly,
                                                 cell.outcome.promotable),
                        cell.outcome.promotable, report::speedup_text(cell.outcome.cert.throughput),
                        cell.outcome.cert.cache_check
                            ? std::string(core::status_word(cell.outcome.cert.cache_check->status))
                            : "-"});
    }
    for (const auto& cell : skipped)
        rows.push_back({cell.ctx, cell.parallel,
                        cell.done ? "(skipped: certified before)" : "(skipped: run elsewhere)",
                        cell.done && cell.promotable, "-"});
    return rows;
}

SweepTally tally(const std::vector<CellResult>& results, const std::vector<SkippedCell>& skipped) {
    SweepTally run;
    // A cache check that found a change fails the run as a verdict that is not promotable does.
    for (const auto& cell : results)
        run.all_promotable &= cell.outcome.promotable && !(cell.outcome.cert.cache_check &&
                                                           cell.outcome.cert.cache_check->status ==
                                                               core::BaselineStatus::Changed);
    for (const auto& cell : skipped) {
        run.all_promotable &= cell.done && cell.promotable;
        ++(cell.done ? run.done_before : run.left_to_others);
    }
    run.ran = results.size();
    return run;
}

// The plan once per side of --determinism: `both` runs every cell with the mode off, then with
// it on (its servers launched with the kind's switch and its own warm-up; nothing shared), each
// side writing its own certs; any other choice runs the plan as it is.
std::vector<RunPlan> determinism_sides(const RunPlan& plan, Progress& progress) {
    std::vector<RunPlan> sides;
    const auto& o = plan.options;
    const bool both = o.determinism && o.determinism_choice == core::DeterminismChoice::Both;
    for (const bool on :
         both ? std::vector<bool>{false, true} : std::vector<bool>{o.determinism.value_or(false)}) {
        RunPlan side = plan;
        if (side.options.determinism) side.options.determinism = on;
        if (on && side.options.kind) {
            auto& warmup = side.options.request.dialect.warmup;
            warmup = std::max(warmup, side.options.kind->determinism.warmup);
        }
        if (both)
            progress.note(std::string("determinism mode ") + (on ? "on" : "off") + " (" +
                          side.options.kind->determinism.describe() + (on ? "" : " not set") +
                          "): every cell of this side");
        sides.push_back(std::move(side));
    }
    return sides;
}

// Runs the prepared plan, telling the hooks of each cell as it is decided or skipped.
CellsRun run_prepared(const RunSetup& setup, const CellsOptions& options, const CellHooks& hooks) {
    install_interrupt_handlers();
    Progress progress(Progress::detect(setup.quiet), *options.notes);
    std::vector<SkippedCell> skipped;
    CellsRun run;
    for (const auto& plan : determinism_sides(setup.plan, progress)) {
        auto results = run_plan(
            plan, *setup.scorer, setup.rows, progress,
            [&hooks](const CellResult& cell) {
                if (hooks.cell_decided) hooks.cell_decided(cell);
            },
            [&](const SkippedCell& cell) {
                skipped.push_back(cell);
                if (hooks.cell_skipped) hooks.cell_skipped(cell);
            });
        for (auto& cell : results) run.results.push_back(std::move(cell));
    }
    run.tally = tally(run.results, skipped);
    if (!options.report_html.empty()) {
        write_report_html(run.results, options.report_html);
        if (hooks.report_written) hooks.report_written(options.report_html);
    }
    if (options.sweep && hooks.sweep_rows)
        hooks.sweep_rows(setup.plan.options.model_alias, sweep_rows(run.results, skipped));
    if (options.sweep && hooks.sweep_recommendation)
        hooks.sweep_recommendation(recommendation_of(run.results));
    return run;
}

}  // namespace

CellsRun run_cells(const core::RunRequest& request, const CellsOptions& options,
                   const CellHooks& hooks) {
    if (!options.notes) throw Error(ErrorCategory::Internal, "run_cells needs a notes stream");
    check_cobatched_parallels(request);
    // Before plugins load or anything launches: a baseline that cannot be trusted costs nothing.
    auto baseline = stored_baseline(options);
    RunSetup setup = prepare_run(request, options.invocation, options.sweep, options.profile_scope,
                                 *options.notes);
    setup.quiet = options.quiet;
    setup.json = options.json;
    if (hooks.prepared) hooks.prepared(setup);
    plan_server(request, options, setup);
    if (baseline) attach_baseline(setup, request, std::move(*baseline));
    if (options.dry_run) {
        if (hooks.dry_run_plan) hooks.dry_run_plan(dry_run_text(setup));
        return {};
    }
    if (options.resume) resume_plan(*options.resume, setup.plan);
    return run_prepared(setup, options, hooks);
}

}  // namespace bi::driver
