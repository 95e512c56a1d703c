#include "run_setup.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>

#include "build_info.hpp"
#include "cli/command_line.hpp"
#include "cli/option_naming.hpp"
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
    return driver::seconds_value(core::Seconds(args[name].as<double>()), std::string("--") + name,
                                 zero_allowed);
}

std::string string_option(const cxxopts::ParseResult& args, const std::string& name) {
    const auto& value = args[name];
    return value.count() || value.has_default() ? value.as<std::string>() : std::string();
}

std::uint64_t max_response_bytes_option(const cxxopts::ParseResult& args) {
    return driver::max_response_bytes_value(args["max-response-bytes"].as<std::string>());
}

core::EndpointKind endpoint_option(const cxxopts::ParseResult& args) {
    const auto word = args["endpoint"].as<std::string>();
    const auto endpoint = core::parse_endpoint(word);
    if (!endpoint)
        usage_error("--endpoint must be " + std::string(core::kEndpointWords) + ", not '" + word +
                    "'");
    return *endpoint;
}

core::Arrivals arrivals_option(const cxxopts::ParseResult& args) {
    const auto word = args["arrivals"].as<std::string>();
    const auto arrivals = core::parse_arrivals(word);
    if (!arrivals)
        usage_error("--arrivals must be " + std::string(core::kArrivalsWords) + ", not '" + word +
                    "'");
    return *arrivals;
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
    using F = core::RequestField;
    r.ctxs = driver::whole_number_list(args["ctx"].as<std::string>(), F::Ctxs, 16, allow_lists);
    r.parallels =
        driver::whole_number_list(args["parallel"].as<std::string>(), F::Parallels, 1, allow_lists);
    if (args.count("passes")) r.passes = args["passes"].as<int>();
    if (args.count("target-rate")) r.target_rate = args["target-rate"].as<double>();
    r.confidence = args["confidence"].as<double>();
    if (args.count("max-passes")) r.max_passes = args["max-passes"].as<int>();
    r.reps = args["reps"].as<int>();
    r.n_predict = args["n-predict"].as<int>();
    r.kv_label = given(args, "kv-label");
    r.endpoint = endpoint_option(args);
    r.logprobs = args["logprobs"].as<int>();
    r.seed = args["seed"].as<std::uint64_t>();
    r.stagger_ms = args["stagger-ms"].as<int>();
    r.arrivals = arrivals_option(args);
    r.req_timeout = core::Seconds(args["req-timeout"].as<double>());
    r.arm_deadline = core::Seconds(args["arm-deadline"].as<double>());
    r.stop_on_red = args.count("stop-on-red") > 0;
    r.cache_arm = args.count("cache-arm") > 0;
    if (const auto word = given(args, "determinism")) {
        r.determinism = core::parse_determinism(*word);
        if (!r.determinism)
            usage_error("--determinism must be " + std::string(core::kDeterminismWords) +
                        ", not '" + *word + "'");
    }
    r.max_response_bytes = max_response_bytes_option(args);
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
        scoring.generator_params =
            parse_generator_params(args["generator-param"].as<std::vector<std::string>>());
    scoring.logit_drift_eps = number_option(args, "logit-drift-eps", 0, 1e6);
    return scoring;
}

namespace {

void print_cell(const driver::CellResult& result, bool json) {
    const driver::CellOutcome& outcome = result.outcome;
    const report::DecidedCell cell{outcome.cert, outcome.verdict, outcome.cert_path,
                                   outcome.promotable, outcome.replaced};
    if (json)
        std::cout << report::cell_json(cell, version_json(build_info())) << std::endl;
    else
        std::cout << report::cell_text(cell) << std::flush;
}

}  // namespace

driver::CellsOptions cells_options(const CommandLine& line, const cxxopts::ParseResult& args) {
    driver::CellsOptions options;
    options.invocation = invocation(line);
    options.notes = line.notes;
    options.quiet = args.count("quiet") > 0;
    options.json = args.count("json") > 0;
    return options;
}

driver::CellHooks printing_hooks(const CommandLine& line, bool json) {
    driver::CellHooks hooks;
    hooks.cell_decided = [json](const driver::CellResult& cell) { print_cell(cell, json); };
    hooks.dry_run_plan = [&line](const std::string& plan) {
        std::cout << with_options_named(plan, line) << std::flush;
    };
    if (json) return hooks;
    hooks.report_written = [](const std::string& path) {
        std::cout << "report: " << path << std::endl;
    };
    hooks.sweep_rows = [](const std::string& model, const std::vector<report::SweepRow>& rows) {
        std::cout << report::sweep_table(model, rows) << std::flush;
    };
    hooks.sweep_recommendation = [](const std::vector<std::string>& lines) {
        for (const auto& answer : lines) std::cout << answer << "\n";
        std::cout << std::flush;
    };
    return hooks;
}

}  // namespace bi::cli
