// bi-run run-live, sweep and plan-n: cells against the user's own llama-server binary and model,
// one PID-scoped server at a time, every guard checked before anything starts.
#include <iostream>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "driver/plan_description.hpp"
#include "driver/run_cells.hpp"
#include "exit_codes.hpp"
#include "guard_options.hpp"
#include "io/files.hpp"
#include "option_aliases.hpp"
#include "option_tokens.hpp"
#include "run_setup.hpp"
#include "server/guards.hpp"
#include "sweep_shards.hpp"
#include "trust_options.hpp"
#include "upstream_options.hpp"

namespace bi::cli {

void add_server_options(cxxopts::Options& options, bool launches) {
    options.add_options("Server")("server-bin", "The llama-server (or work-alike) binary",
                                  cxxopts::value<std::string>())("model", "The GGUF model file",
                                                                 cxxopts::value<std::string>())(
        "server-flag",
        "One extra server argv token, commas kept (repeatable; --server-flag=-t for dash "
        "values)",
        cxxopts::value<std::vector<std::string>>())(
        "server-kind",
        "The server's kind: a name (llama-server, ik_llama.cpp, vllm, sglang, tgi, "
        "trtllm-serve, ollama, openai-generic, or a NAME.toml in --server-kind-dir or "
        "$BI_SERVER_KIND_PATH) or a kind file (default: the profile's, else the kind the "
        "binary's name and probes say, else llama-server)",
        cxxopts::value<std::string>())(
        "server-kind-dir", "Directory searched first for a --server-kind name (repeatable)",
        cxxopts::value<std::vector<std::string>>())(
        "profile",
        "A models.toml alias (sets binary, model, flags, KV label), or a measurement "
        "profile: a plugin generator + scorer of that id, e.g. spark, whose model is then "
        "--model-alias's models.toml entry or --server-bin and --model (the models file "
        "wins when the name is both)",
        cxxopts::value<std::string>())(
        "models-toml", "The models file (default: $BI_MODELS_TOML, else ./models.toml)",
        cxxopts::value<std::string>())(
        "models-dir", "Replaces {MODELS_DIR} in models.toml (default: $MODELS_DIR)",
        cxxopts::value<std::string>())("ready-timeout",
                                       "Seconds a server may take to answer /health",
                                       cxxopts::value<double>()->default_value("600"))(
        "shutdown-grace",
        "Seconds between SIGTERM and SIGKILL at teardown, on every path (a second interrupt: "
        "SIGKILL at once)",
        cxxopts::value<double>()->default_value("10"));
    if (launches) options.add_options("Server")("dry-run", "Print the plan and launch nothing");
}

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

// run-live and sweep share every option but the lists and the plan's.
CommandOptions live_options(bool sweep) {
    cxxopts::Options options(
        sweep ? "bi-run sweep" : "bi-run run-live",
        sweep
            ? "Runs run-live over every (ctx, N) of --ctx 4096,8192 --parallel 2,4,8: one cert "
              "per\n"
              "cell, one run of arm A per ctx shared by all N at that ctx, a summary table at the\n"
              "end. With --plan (see bi-run plan) it runs its shard of a planned sweep into a\n"
              "shared directory, skipping cells certified before with the same configuration.\n\n"
              "Exit status: 0 when every cell is a promotable GREEN, 3 otherwise, 2 usage error\n"
              "or refused launch, 1 an error before a cell's verdict (cells already done keep\n"
              "their certs), 129/130/143 interrupted (SIGHUP/SIGINT/SIGTERM)."
            : "Verifies one cell (model, ctx, N) against a real server: arm A (--parallel 1,\n"
              "serial), A' (its repeat), then on a --parallel N server arm B (serial) and T "
              "passes\n"
              "of arm C (N requests at once). Writes one cert; a GREEN is promotable only from a\n"
              "live server.\n\n"
              "Exit status: 0 promotable GREEN, 3 a verdict that is not promotable, 2 usage error\n"
              "or refused launch (no cert), 1 error before a verdict (no cert), 129/130/143\n"
              "interrupted.");
    // Before add_run_options, so that --help stays the last of the Output group.
    options.add_options("Output")("report-html",
                                  "At the end, write the HTML report of this run's certs to FILE",
                                  cxxopts::value<std::string>(), "FILE");
    options.add_options("Baseline")(
        "baseline",
        "Also check arm A against this stored baseline (bi-run baseline record): the check "
        "report goes beside the certs and each cert records its result, never changing its "
        "verdict. The run's settings must be the baseline's; with no work-set of its own the "
        "run sends the baseline's rows",
        cxxopts::value<std::string>(), "FILE");
    auto baseline_group = options.add_options("Baseline");
    add_trusted_key_option(baseline_group);
    add_run_options(options, "", sweep);
    add_server_options(options, true);
    add_guard_options(options);
    if (sweep) add_shard_options(options);
    auto groups = run_help_groups();
    groups.insert(groups.end() - 1, "Baseline");
    return {options, groups};
}

// run-live is a sweep of exactly one cell; both share everything but the lists and the table.
int run_live_cells(int raw_argc, char** raw_argv, bool sweep) {
    // Upstream's run-live --ctx-sweep (a switch: a per-ctx grid of verdicts over --ctx) runs the
    // sweep, and so does bi-run's own list form, --ctx-sweep A,B.
    sweep = sweep || has_option(raw_argc, raw_argv, "--ctx-sweep");
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, live_option_aliases()));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = live_options(sweep);
    const auto args = parse_command_line(command.options, argc, argv);
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
    auto options = cells_options(args);
    options.sweep = sweep;
    options.dry_run = args.count("dry-run") > 0;
    options.report_html = report_html_option(args);
    if (args.count("baseline")) {
        options.baseline = args["baseline"].as<std::string>();
        options.baseline_keys = option_tokens(args, "trusted-key");
    }
    const auto run =
        driver::run_cells(live_request(args, sweep), options, printing_hooks(options.json));
    return run.tally.all_promotable ? kExitPromotable : kExitNotPromotable;
}

}  // namespace

void add_plan_options(cxxopts::Options& options) {
    add_run_options(options, "", true);
    add_server_options(options, false);
    add_guard_options(options, false);
}

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

CommandOptions run_live_options() {
    return live_options(false);
}

CommandOptions sweep_options() {
    return live_options(true);
}

int run_live_main(int argc, char** argv) {
    return run_live_cells(argc, argv, false);
}

int sweep_main(int argc, char** argv) {
    return run_live_cells(argc, argv, true);
}

namespace {

// A number option's value when it was given, else nullopt.
template <typename T>
std::optional<T> if_given(const cxxopts::ParseResult& args, const char* name) {
    return args.count(name) ? std::optional<T>(args[name].as<T>()) : std::nullopt;
}

}  // namespace

CommandOptions plan_n_options() {
    cxxopts::Options options(
        "bi-run plan-n",
        "Prints the projected footprint (model + KV cache + overhead) of a --parallel N server\n"
        "for N = 1..--max-n at --ctx tokens per slot, against MemAvailable and\n"
        "--max-footprint-gb. Without the model file, --gguf-gb and the KV shape (--n-layer,\n"
        "--n-head-kv, --head-dim) stand for it.\n\n"
        "Exit status: 0 at least one N fits, 3 no N fits, 2 usage error.");
    options.add_options("Model")("model", "The GGUF model file", cxxopts::value<std::string>())(
        "profile", "A model alias from models.toml", cxxopts::value<std::string>())(
        "models-toml", "The models file (default: $BI_MODELS_TOML, else ./models.toml)",
        cxxopts::value<std::string>())("models-dir", "Replaces {MODELS_DIR} in models.toml",
                                       cxxopts::value<std::string>())(
        "gguf-gb", "Size of the model file in GiB, when the file is not at hand",
        cxxopts::value<double>())("n-layer", "Layers (block_count), with --gguf-gb",
                                  cxxopts::value<std::int64_t>())(
        "n-head-kv", "KV heads (attention.head_count_kv), with --gguf-gb",
        cxxopts::value<std::int64_t>())("head-dim", "Width of one K or V head, with --gguf-gb",
                                        cxxopts::value<std::int64_t>())(
        "model-alias", "The model's name in the table (default: the model file)",
        cxxopts::value<std::string>())(
        "server-bin", "Ignored here (accepted for symmetry with run-live)",
        cxxopts::value<std::string>())("server-flag", "Ignored here (accepted for symmetry)",
                                       cxxopts::value<std::vector<std::string>>());
    options.add_options("Plan")("ctx", "Context per slot, in tokens",
                                cxxopts::value<std::int64_t>()->default_value("2048"))(
        "max-n", "Largest N (also --parallel)", cxxopts::value<int>()->default_value("8"))(
        "kv-label",
        "KV cache type (f16, q8_0, q4_0 ...; default: the profile's, else f16; also --kv)",
        cxxopts::value<std::string>())("max-footprint-gb",
                                       "Cap in GiB to compare against (0 = none; MemAvailable "
                                       "still applies)",
                                       cxxopts::value<double>());
    options.add_options("Output")("h,help", "Show this help");
    return {options, {"Model", "Plan", "Output"}};
}

int plan_n_main(int raw_argc, char** raw_argv) {
    // Upstream's plan-n names the largest N --parallel.
    ArgvCopy rewritten(
        apply_aliases(raw_argc, raw_argv, {{"--kv", "--kv-label"}, {"--parallel", "--max-n"}}));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = plan_n_options();
    const auto args = parse_command_line(command.options, argc, argv);
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
    std::cout << table.text << std::flush;
    if (table.largest_fit == 0) return kExitNotPromotable;
    return kExitPromotable;
}

}  // namespace bi::cli
