#include "run_setup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "build_info.hpp"
#include "command_line.hpp"
#include "core/cert.hpp"
#include "core/error.hpp"
#include "core/run_request.hpp"
#include "driver/builtin_workset.hpp"
#include "io/file_hash_cache.hpp"
#include "io/files.hpp"
#include "io/json_text.hpp"
#include "io/workset.hpp"
#include "plugin_args.hpp"
#include "plugin_host/plugin_fault.hpp"
#include "provenance.hpp"
#include "report/run_summary.hpp"

namespace bi::cli {

std::chrono::milliseconds seconds_option(const cxxopts::ParseResult& args, const char* name,
                                         bool zero_allowed) {
    return driver::seconds_value(args[name].as<double>(), name, zero_allowed);
}

std::string string_option(const cxxopts::ParseResult& args, const std::string& name) {
    const auto& value = args[name];
    return value.count() || value.has_default() ? value.as<std::string>() : std::string();
}

std::size_t max_response_bytes_option(const cxxopts::ParseResult& args) {
    return driver::max_response_bytes_value(args["max-response-bytes"].as<std::string>());
}

void add_max_response_bytes_option(cxxopts::OptionAdder& adder) {
    adder("max-response-bytes", "Most bytes one server answer may have, headers included",
          cxxopts::value<std::string>()->default_value(
              std::to_string(http::kDefaultMaxResponseBytes)));
}

void add_run_options(cxxopts::Options& options, const std::string& default_alias, bool lists) {
    auto alias = default_alias.empty()
                     ? cxxopts::value<std::string>()
                     : cxxopts::value<std::string>()->default_value(default_alias);
    options.add_options("Cell")("out-dir",
                                "Directory the cert is written to (created when missing)",
                                cxxopts::value<std::string>())(
        "model-alias",
        default_alias.empty() ? "The cert's model name (default: the models.toml alias, else the "
                                "model file's name without .gguf)"
                              : "The cert's model name",
        alias)("ctx",
               lists ? "Contexts per slot, in tokens: a comma-separated list, e.g. 4096,8192"
                     : "Context per slot, in tokens",
               cxxopts::value<std::string>()->default_value("2048"))(
        "parallel",
        lists ? "Values of N (slots of the batched server, requests sent at once): a "
                "comma-separated list, e.g. 2,4,8"
              : "N: slots of the batched server and requests sent at once",
        cxxopts::value<std::string>()->default_value("4"))(
        "passes", "Concurrent passes of arm C (T; also --gate-passes)",
        cxxopts::value<int>()->default_value("4"))(
        "target-rate",
        "Planned passes: run C passes until a zero-divergence bound at --confidence rules out "
        "this flip rate per trial (0 < P < 1; not with --passes)",
        cxxopts::value<double>())(
        "confidence", "Confidence of the sensitivity bounds and of --target-rate (0 < C < 1)",
        cxxopts::value<double>()->default_value("0.95"))(
        "max-passes", "Cap on the planned passes of --target-rate",
        cxxopts::value<int>()->default_value(std::to_string(driver::kDefaultMaxPasses)))(
        "reps", "Repetitions of every work-set row", cxxopts::value<int>()->default_value("1"))(
        "n-predict", "Tokens to generate per request", cxxopts::value<int>()->default_value("32"))(
        "kv-label",
        "KV cache type recorded in the cert and used by the footprint guard (also --kv)",
        cxxopts::value<std::string>()->default_value(std::string(core::kDefaultKvLabel)));
    options.add_options("Requests")(
        "endpoint", "chat (/v1/chat/completions) or completion (/completion, token ids)",
        cxxopts::value<std::string>()->default_value("chat"))(
        "logprobs",
        "Ask for top logprobs per token: max(K, 2), for the forensics (0 = off; also --n-probs)",
        cxxopts::value<int>()->default_value("0"))(
        "seed", "Seeds the C pass permutations and the work-set generator (recorded in the cert)",
        cxxopts::value<std::uint64_t>()->default_value(std::to_string(kDefaultSeed)))(
        "stagger-ms", "Delay between the first requests of the N workers",
        cxxopts::value<int>()->default_value("0"))(
        "req-timeout", "Seconds one request may take in all (connect to last byte)",
        cxxopts::value<double>()->default_value("120"))(
        "arm-deadline", "Seconds one arm or pass may take (0 = no limit)",
        cxxopts::value<double>()->default_value("0"))(
        "stop-on-red", "Stop the C passes at the first invariant divergence");
    auto requests = options.add_options("Requests");
    add_max_response_bytes_option(requests);
    add_plugin_options(options, "Scoring and work-set");
    add_scoring_options(options, "recorded in the cert");
    add_plugin_timeout_option(options, "Scoring and work-set");
    options.add_options("Output")(
        "sign-key",
        "Ed25519 private key (bi-run keygen) that signs every cert (default: $BI_SIGN_KEY)",
        cxxopts::value<std::string>())("quiet", "No progress on stderr")(
        "json", "Print a one-line JSON summary on stdout")("h,help", "Show this help");
}

void add_scoring_options(cxxopts::Options& options, const std::string& drift_recorded) {
    options.add_options("Scoring and work-set")("scorer", "Scorer id (default: exact)",
                                                cxxopts::value<std::string>())(
        "scorer-config", "JSON text handed to the scorer (default: {})",
        cxxopts::value<std::string>())("workset",
                                       "Work-set JSON file (or - for standard input, or a FIFO)",
                                       cxxopts::value<std::string>())(
        "generator", "Work-set generator id (from a plugin)", cxxopts::value<std::string>())(
        "generator-param", "KEY=VALUE for the generator (repeatable)",
        cxxopts::value<std::vector<std::string>>())(
        "logit-drift-eps",
        "Logprob-only drift smaller than this is not counted as drift (0 = exact; " +
            drift_recorded + ")",
        cxxopts::value<double>()->default_value("0"));
}

std::vector<std::string> run_help_groups() {
    return {"Cell",        "Server", "Guards", "Requests", "Scoring and work-set",
            "Mock server", "Output"};
}

std::vector<OptionAlias> run_option_aliases() {
    return {
        {"--gate-passes", "--passes"},
        {"--n-probs", "--logprobs"},
        {"--kv", "--kv-label"},
        {"--profile-corner", "--generator-param", nullptr, "corner=", true},
    };
}

core::RunRequest run_request(const cxxopts::ParseResult& args, bool allow_lists) {
    core::RunRequest r;
    r.out_dir = args.count("out-dir") ? args["out-dir"].as<std::string>() : "";
    if (const auto alias = string_option(args, "model-alias"); !alias.empty())
        r.model_alias = alias;
    r.profile = given(args, "profile");
    r.ctxs = driver::whole_number_list(args["ctx"].as<std::string>(), "ctx", 16, allow_lists);
    r.parallels =
        driver::whole_number_list(args["parallel"].as<std::string>(), "parallel", 1, allow_lists);
    if (args.count("passes")) r.passes = args["passes"].as<int>();
    if (args.count("target-rate")) r.target_rate = args["target-rate"].as<double>();
    r.confidence = args["confidence"].as<double>();
    if (args.count("max-passes")) r.max_passes = args["max-passes"].as<int>();
    r.reps = args["reps"].as<int>();
    r.n_predict = args["n-predict"].as<int>();
    r.kv_label = given(args, "kv-label");
    r.endpoint = args["endpoint"].as<std::string>();
    r.logprobs = args["logprobs"].as<int>();
    r.seed = args["seed"].as<std::uint64_t>();
    r.stagger_ms = args["stagger-ms"].as<int>();
    r.req_timeout_s = args["req-timeout"].as<double>();
    r.arm_deadline_s = args["arm-deadline"].as<double>();
    r.stop_on_red = args.count("stop-on-red") > 0;
    r.max_response_bytes = std::to_string(max_response_bytes_option(args));
    r.scoring = scoring_request(args);
    r.sign_key = given(args, "sign-key");
    return r;
}

core::ScoringRequest scoring_request(const cxxopts::ParseResult& args) {
    core::ScoringRequest scoring = plugin_request(args);
    scoring.scorer = given(args, "scorer");
    scoring.scorer_config = given(args, "scorer-config");
    scoring.workset = given(args, "workset");
    scoring.generator = given(args, "generator");
    if (args.count("generator-param"))
        for (const auto& [key, value] :
             parse_generator_params(args["generator-param"].as<std::vector<std::string>>()))
            scoring.generator_params.push_back(key + "=" + value);
    scoring.logit_drift_eps = number_option(args, "logit-drift-eps", 0, 1e6);
    return scoring;
}

namespace {

void print_cell(const driver::CellResult& result, bool json) {
    const driver::CellOutcome& outcome = result.outcome;
    const report::DecidedCell cell{outcome.cert, outcome.verdict, outcome.cert_path,
                                   outcome.promotable};
    if (json)
        std::cout << report::cell_json(cell, version_json(build_info())) << std::endl;
    else
        std::cout << report::cell_text(cell) << std::flush;
}

}  // namespace

driver::CellsOptions cells_options(const cxxopts::ParseResult& args) {
    driver::CellsOptions options;
    options.invocation = invocation();
    options.notes = &std::cerr;
    options.quiet = args.count("quiet") > 0;
    options.json = args.count("json") > 0;
    return options;
}

driver::CellHooks printing_hooks(bool json) {
    driver::CellHooks hooks;
    hooks.cell_decided = [json](const driver::CellResult& cell) { print_cell(cell, json); };
    hooks.dry_run_plan = [](const std::string& plan) { std::cout << plan << std::flush; };
    if (json) return hooks;
    hooks.report_written = [](const std::string& path) {
        std::cout << "report: " << path << std::endl;
    };
    hooks.sweep_rows = [](const std::string& model, const std::vector<report::SweepRow>& rows) {
        std::cout << report::sweep_table(model, rows) << std::flush;
    };
    return hooks;
}

}  // namespace bi::cli
