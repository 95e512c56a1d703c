// bi-run run-live, sweep and plan-n: cells against the user's own llama-server binary and model,
// one PID-scoped server at a time, every guard checked before anything starts.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/cert.hpp"
#include "core/error.hpp"
#include "core/sample_size.hpp"
#include "driver/baseline_run.hpp"
#include "driver/interrupt.hpp"
#include "driver/plan_description.hpp"
#include "driver/run_plan.hpp"
#include "exit_codes.hpp"
#include "guard_options.hpp"
#include "io/files.hpp"
#include "io/model_profile.hpp"
#include "option_aliases.hpp"
#include "option_tokens.hpp"
#include "report/report_html.hpp"
#include "report/report_model.hpp"
#include "report/run_summary.hpp"
#include "report/sensitivity_text.hpp"
#include "report/verdict_headline.hpp"
#include "run_setup.hpp"
#include "server/argv.hpp"
#include "server/gpu_memory.hpp"
#include "server/guards.hpp"
#include "server/model_facts.hpp"
#include "sweep_shards.hpp"
#include "trust_options.hpp"
#include "upstream_options.hpp"

namespace bi::cli {

core::TargetRequest target_request(const cxxopts::ParseResult& args) {
    core::TargetRequest t;
    t.server_bin = given(args, "server-bin");
    t.model = given(args, "model");
    t.server_kind = given(args, "server-kind");
    t.server_kind_dirs = option_tokens(args, "server-kind-dir");
    t.server_flags = option_tokens(args, "server-flag");
    t.models_toml = given(args, "models-toml");
    t.models_dir = given(args, "models-dir");
    if (args.count("ready-timeout")) t.ready_timeout_s = args["ready-timeout"].as<double>();
    if (args.count("shutdown-grace")) t.shutdown_grace_s = args["shutdown-grace"].as<double>();
    read_guard_options(args, t);
    return t;
}

namespace {

core::RunRequest live_request(const cxxopts::ParseResult& args, bool sweep) {
    core::RunRequest request = run_request(args, sweep);
    request.target = target_request(args);
    return request;
}

// --report-html FILE, checked before anything is launched; it may go into --out-dir, which the
// run creates before the report is written.
std::string report_html_option(const cxxopts::ParseResult& args) {
    if (!args.count("report-html")) return "";
    auto path = args["report-html"].as<std::string>();
    io::check_output_file(path, "--report-html",
                          args.count("out-dir") ? args["out-dir"].as<std::string>() : "");
    return path;
}

// The page `bi-run report --html` would write for the certs this run wrote.
void write_report_html(const std::vector<driver::CellResult>& results, const std::string& path,
                       bool announce) {
    std::vector<std::string> certs;
    certs.reserve(results.size());
    for (const auto& cell : results) certs.push_back(cell.outcome.cert_path);
    io::write_file_atomically(path, report::render_html(report::load_report(certs)));
    if (announce) std::cout << "report: " << path << std::endl;
}

// The cell commands' aliases plus those only run-live and sweep take.
std::vector<OptionAlias> live_option_aliases() {
    auto aliases = run_option_aliases();
    for (auto& alias : guard_option_aliases()) aliases.push_back(alias);
    for (auto& alias : upstream_live_options()) aliases.push_back(alias);
    aliases.push_back(cert_source_option(true));
    OptionAlias ctx_sweep{"--ctx-sweep", "--ctx"};
    ctx_sweep.switch_too = true;  // upstream's switch: the per-ctx grid of --ctx's values
    aliases.push_back(ctx_sweep);
    // Upstream asked for this before launching; bi-run launches only when asked to run a cell.
    aliases.push_back({"--i-understand-this-launches-a-real-server", ""});
    return aliases;
}

// run-live is a sweep of exactly one cell; both share everything but the lists and the table.
int run_live_cells(int raw_argc, char** raw_argv, bool sweep) {
    // Upstream's run-live --ctx-sweep (a switch: a per-ctx grid of verdicts over --ctx) runs the
    // sweep, and so does bi-run's own list form, --ctx-sweep A,B.
    sweep = sweep || has_option(raw_argc, raw_argv, "--ctx-sweep");
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, live_option_aliases()));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = command_options(sweep ? "sweep" : "run-live");
    const auto args = parse_command_line(command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (sweep && args.count("plan")) {
        if (args.count("baseline"))
            usage_error(
                "--baseline checks one run's arm A; a planned sweep's shards run without it");
        return sweep_from_plan(args);
    }
    if (args.count("trusted-key") && !args.count("baseline"))
        usage_error(
            "--trusted-key names the keys --baseline must be signed by: give --baseline too");
    if (sweep && (args.count("shard") || args.count("shard-count")))
        usage_error(
            "--shard and --shard-count split a planned sweep: give --plan too (see bi-run plan)");
    CellsOutput output;
    output.quiet = args.count("quiet") > 0;
    output.json = args.count("json") > 0;
    output.dry_run = args.count("dry-run") > 0;
    output.report_html = report_html_option(args);
    if (args.count("baseline")) {
        output.baseline = args["baseline"].as<std::string>();
        output.baseline_keys = option_tokens(args, "trusted-key");
    }
    const auto run = run_cells(live_request(args, sweep), sweep, output, nullptr);
    return run.all_promotable ? kExitPromotable : kExitNotPromotable;
}

}  // namespace

std::vector<OptionAlias> plan_option_aliases() {
    std::vector<OptionAlias> aliases;
    for (const auto& alias : live_option_aliases())
        if (std::string_view(alias.spelling) != "--experiment-port") aliases.push_back(alias);
    const char* own_port = "the tasks of a plan may share a node, so each picks its own free port";
    aliases.push_back({"--port", "", nullptr, nullptr, false, own_port});
    aliases.push_back({"--experiment-port", "", nullptr, nullptr, false, own_port});
    aliases.push_back(
        {"--dry-run", "", nullptr, nullptr, false, "bi-run plan launches nothing anyway"});
    return aliases;
}

core::RunRequest sweep_request(const cxxopts::ParseResult& args) {
    return live_request(args, true);
}

SweepTally run_cells(const core::RunRequest& request, bool sweep, const CellsOutput& output,
                     const ResumeMode* resume) {
    // A baseline that cannot be trusted is refused before plugins load or anything launches.
    std::optional<driver::StoredBaseline> baseline;
    if (!output.baseline.empty()) {
        trust::TrustedKeys keys;
        for (const auto& key : output.baseline_keys) keys.add(key);
        baseline = driver::load_baseline(output.baseline, std::move(keys));
    }
    RunSetup setup = prepare_run(request, sweep, ProfileScope::ModelsFileFirst);
    setup.quiet = output.quiet;
    setup.json = output.json;
    driver::plan_from_request(request, setup);
    if (baseline) driver::attach_baseline(setup, request, std::move(*baseline));
    const std::string& report_html = output.report_html;
    SweepTally run;
    if (output.dry_run) {
        std::cout << driver::describe_live_plan(setup.plan)
                  << driver::describe_passes(setup.plan, driver::work_set_size(setup));
        if (const auto& b = setup.plan.baseline)
            std::cout << "baseline check: arm A at ctx " << b->value.ctx << " against "
                      << b->file.path << " (" << b->file.signature << "), report "
                      << setup.plan.check_path(b->value.ctx) << "\n";
        std::cout << std::flush;
        return run;
    }
    if (resume) {
        if (setup.plan.options.model_alias != resume->model)
            usage_error("the plan's group names model " + resume->model + " but its options give " +
                        setup.plan.options.model_alias + " here (another models.toml?)");
        setup.plan.resume = true;
        setup.plan.stale_lock_after = resume->stale_lock_after;
    }
    driver::install_interrupt_handlers();
    driver::Progress progress(driver::Progress::detect(setup.quiet), std::cerr);
    std::vector<driver::SkippedCell> skipped;
    const auto results = driver::run_plan(
        setup.plan, *setup.scorer, setup.rows, progress,
        [&setup](const driver::CellResult& cell) { report_outcome(cell, setup); },
        [&skipped](const driver::SkippedCell& cell) { skipped.push_back(cell); });
    for (const auto& cell : results) run.all_promotable &= cell.outcome.promotable;
    if (!report_html.empty()) write_report_html(results, report_html, !setup.json);
    for (const auto& cell : skipped) {
        run.all_promotable &= cell.done && cell.promotable;
        ++(cell.done ? run.done_before : run.left_to_others);
    }
    run.ran = results.size();
    if (sweep && !setup.json) {
        std::vector<report::SweepRow> rows;
        for (const auto& cell : results) {
            const auto& v = cell.outcome.verdict;
            rows.push_back({cell.ctx, cell.parallel,
                            report::verdict_headline(v.status, v.divergence_class, v.anomaly,
                                                     cell.outcome.promotable),
                            cell.outcome.promotable});
        }
        for (const auto& cell : skipped)
            rows.push_back({cell.ctx, cell.parallel,
                            cell.done ? "(skipped: certified before)" : "(skipped: run elsewhere)",
                            cell.done && cell.promotable});
        std::cout << report::sweep_table(setup.plan.options.model_alias, rows) << std::flush;
    }
    return run;
}

int run_live_main(int argc, char** argv) {
    return run_live_cells(argc, argv, false);
}

int sweep_main(int argc, char** argv) {
    return run_live_cells(argc, argv, true);
}

namespace {

// The model facts plan-n projects from: the GGUF file, or, without it (a CI box that has not the
// model), --gguf-gb and the KV shape (driver::model_facts names exactly what is missing).
server::ModelFacts plan_facts(const cxxopts::ParseResult& args, const driver::LiveTarget& target) {
    driver::ModelShape shape;
    if (args.count("gguf-gb")) shape.file_gib = number_option(args, "gguf-gb", 0.001, 1e6);
    if (args.count("n-layer")) shape.n_layer = args["n-layer"].as<std::int64_t>();
    if (args.count("n-head-kv")) shape.n_head_kv = args["n-head-kv"].as<std::int64_t>();
    if (args.count("head-dim")) shape.head_dim = args["head-dim"].as<std::int64_t>();
    return driver::model_facts(target.model, shape);
}

}  // namespace

int plan_n_main(int raw_argc, char** raw_argv) {
    // Upstream's plan-n names the largest N --parallel.
    ArgvCopy rewritten(
        apply_aliases(raw_argc, raw_argv, {{"--kv", "--kv-label"}, {"--parallel", "--max-n"}}));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = command_options("plan-n");
    const auto args = parse_command_line(command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    core::RunRequest request;
    if (args.count("profile")) request.profile = args["profile"].as<std::string>();
    request.target = target_request(args);
    const driver::LiveTarget target = driver::resolve_target(request);
    const auto facts = plan_facts(args, target);
    const auto ctx = args["ctx"].as<std::int64_t>();
    const int max_n = args["max-n"].as<int>();
    if (ctx < 16) usage_error("--ctx must be at least 16");
    if (max_n < 1 || max_n > 1024) usage_error("--max-n must be between 1 and 1024");
    const std::string kv = args.count("kv-label") ? args["kv-label"].as<std::string>() : target.kv;
    if (!server::kv_bytes_per_element(kv)) usage_error("--kv-label " + kv + ": unknown cache type");
    std::optional<double> cap;
    if (args.count("max-footprint-gb"))
        cap = driver::footprint_cap(args["max-footprint-gb"].as<double>());
    const std::string name = args.count("model-alias") ? args["model-alias"].as<std::string>()
                             : target.model.empty()    ? facts.path
                                                       : target.model;
    const auto table = driver::footprint_table(facts, name, ctx, max_n, kv, cap);
    std::cout << table.text << std::flush;
    if (table.largest_fit == 0) return kExitNotPromotable;
    return kExitPromotable;
}

}  // namespace bi::cli
