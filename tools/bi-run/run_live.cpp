// bi-run run-live, sweep and plan-n: cells against the user's own llama-server binary and model,
// one PID-scoped server at a time, every guard checked before anything starts.
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_aliases.hpp"
#include "cli/option_naming.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "driver/plan_description.hpp"
#include "driver/run_cells.hpp"
#include "guard_options.hpp"
#include "io/files.hpp"
#include "option_tokens.hpp"
#include "run_setup.hpp"
#include "server/guards.hpp"
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
    if (args.count("prefill-chunk")) t.prefill_chunk = args["prefill-chunk"].as<int>();
    t.models_toml = given(args, "models-toml");
    t.models_dir = given(args, "models-dir");
    if (args.count("ready-timeout"))
        t.ready_timeout = core::Seconds(args["ready-timeout"].as<double>());
    if (args.count("shutdown-grace"))
        t.shutdown_grace = core::Seconds(args["shutdown-grace"].as<double>());
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
int run_live_cells(CommandLine& line, int raw_argc, char** raw_argv, bool sweep) {
    // Upstream's run-live --ctx-sweep (a switch: a per-ctx grid of verdicts over --ctx) runs the
    // sweep, and so does bi-run's own list form, --ctx-sweep A,B.
    sweep = sweep || has_option(raw_argc, raw_argv, "--ctx-sweep");
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, line.aliases, live_option_aliases()));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = command_options(sweep ? "sweep" : "run-live");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (sweep && args.count("plan")) {
        if (args.count("baseline"))
            usage_error(
                "--baseline checks one run's arm A; a planned sweep's shards run without it");
        return sweep_from_plan(line, args);
    }
    if (args.count("trusted-key") && !args.count("baseline"))
        usage_error(
            "--trusted-key names the keys --baseline must be signed by: give --baseline too");
    if (sweep && (args.count("shard") || args.count("shard-count")))
        usage_error(
            "--shard and --shard-count split a planned sweep: give --plan too (see bi-run plan)");
    auto options = cells_options(line, args);
    options.sweep = sweep;
    options.dry_run = args.count("dry-run") > 0;
    options.report_html = report_html_option(args);
    if (args.count("baseline")) {
        options.baseline = args["baseline"].as<std::string>();
        options.baseline_keys = option_tokens(args, "trusted-key");
    }
    const auto run =
        driver::run_cells(live_request(args, sweep), options, printing_hooks(line, options.json));
    return run.tally.all_promotable ? kExitPromotable : kExitNotPromotable;
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

int run_live_main(CommandLine& line, int argc, char** argv) {
    return run_live_cells(line, argc, argv, false);
}

int sweep_main(CommandLine& line, int argc, char** argv) {
    return run_live_cells(line, argc, argv, true);
}

namespace {

// A number option's value when it was given, else nullopt.
template <typename T>
std::optional<T> if_given(const cxxopts::ParseResult& args, const char* name) {
    return args.count(name) ? std::optional<T>(args[name].as<T>()) : std::nullopt;
}

}  // namespace

int plan_n_main(CommandLine& line, int raw_argc, char** raw_argv) {
    // Upstream's plan-n names the largest N --parallel.
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, line.aliases,
                                     {{"--kv", "--kv-label"}, {"--parallel", "--max-n"}}));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = command_options("plan-n");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    driver::FootprintRequest request;
    request.run.profile = given(args, "profile");
    request.run.target = target_request(args);
    // Without the model file (a CI box that has not got it), --gguf-gb and the KV shape.
    if (args.count("gguf-gb")) request.shape.file_gib = number_option(args, "gguf-gb", 0.001, 1e6);
    request.shape.n_layer = if_given<std::int64_t>(args, "n-layer");
    request.shape.n_head_kv = if_given<std::int64_t>(args, "n-head-kv");
    request.shape.head_dim = if_given<std::int64_t>(args, "head-dim");
    request.ctx = args["ctx"].as<std::int64_t>();
    request.max_n = args["max-n"].as<int>();
    request.kv_label = given(args, "kv-label");
    request.max_footprint_gb = if_given<double>(args, "max-footprint-gb");
    request.model_name = given(args, "model-alias");
    const auto table = driver::plan_footprints(request);
    std::cout << with_options_named(table.text, line) << std::flush;
    if (table.largest_fit == 0) return kExitNotPromotable;
    return kExitPromotable;
}

}  // namespace bi::cli
