// bi-run baseline record and bi-run baseline check (docs/baseline.md): the serial arms of a cell
// kept as a signed reference, and the answers of another build, backend or host compared with it.
#include <cxxopts.hpp>

#include <iostream>

#include "build_info.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "core/baseline_documents.hpp"
#include "core/error.hpp"
#include "driver/baseline_commands.hpp"
#include "exit_codes.hpp"
#include "guard_options.hpp"
#include "option_aliases.hpp"
#include "option_tokens.hpp"
#include "plugin_args.hpp"
#include "report/baseline_text.hpp"
#include "run_setup.hpp"
#include "trust_options.hpp"

namespace bi::cli {

namespace {

// The options both commands share: the request timeouts, the plugins a scorer may come from,
// signing and output.
void add_common_options(cxxopts::Options& options) {
    auto requests = options.add_options("Requests");
    requests("req-timeout", "Seconds one request may take in all (connect to last byte)",
             cxxopts::value<double>()->default_value("120"))(
        "arm-deadline", "Seconds one arm may take (0 = no limit)",
        cxxopts::value<double>()->default_value("0"));
    add_max_response_bytes_option(requests);
    add_plugin_options(options, "Scoring and work-set");
    add_plugin_timeout_option(options, "Scoring and work-set");
}

void add_output_options(cxxopts::Options& options, const char* signs) {
    options.add_options("Output")(
        "sign-key",
        std::string("Ed25519 private key (bi-run keygen) that signs the ") + signs +
            " (default: $BI_SIGN_KEY)",
        cxxopts::value<std::string>())("quiet", "No progress on stderr")(
        "json", "Print a one-line JSON summary on stdout")("h,help", "Show this help");
}

// The request settings both commands take from their options.
void read_common_options(const cxxopts::ParseResult& args, core::RunRequest& r) {
    r.req_timeout_s = args["req-timeout"].as<double>();
    r.arm_deadline_s = args["arm-deadline"].as<double>();
    r.max_response_bytes = std::to_string(max_response_bytes_option(args));
    r.target = target_request(args);
    r.sign_key = given(args, "sign-key");
}

const std::vector<std::string>& help_groups() {
    static const std::vector<std::string> groups{
        "Baseline", "Cell", "Server", "Guards", "Requests", "Scoring and work-set", "Output"};
    return groups;
}

// The run options both commands take: --dry-run, --quiet, --json.
driver::CellsOptions run_options(const cxxopts::ParseResult& args) {
    auto options = cells_options(args);
    options.dry_run = args.count("dry-run") > 0;
    return options;
}

}  // namespace

CommandOptions baseline_record_options() {
    cxxopts::Options options(
        "bi-run baseline record",
        "Runs arm A (--parallel 1, serial) and its repeat A' against a server and keeps them as\n"
        "a baseline file: the work rows, every answer (invariant fields, text and its sha256,\n"
        "token ids and top logprobs where the server returns them), what A' showed, and the\n"
        "model, server binary, version and host that answered. `bi-run baseline check` (or\n"
        "run-live --baseline) later compares another build, backend or host with it.\n\n"
        "Exit status: 0 the baseline can stand as a reference, 3 written but it cannot (A'\n"
        "moved, too few answers, not greedy), 2 usage error or refused launch (an existing\n"
        "--out without --replace), 1 an error before the baseline was complete (nothing\n"
        "written), 129/130/143 interrupted.");
    options.add_options("Baseline")(
        "out",
        "The baseline file to write (default: baselines/MODEL__ctxCTX.baseline.json; its "
        "directory is created)",
        cxxopts::value<std::string>(), "FILE")("replace", "Record over an existing --out");
    options.add_options("Cell")(
        "model-alias",
        "The model's name in the test ids (default: the models.toml alias, else the model file's "
        "name without .gguf)",
        cxxopts::value<std::string>())("ctx", "Context of the one-slot server, in tokens",
                                       cxxopts::value<std::int64_t>()->default_value("2048"))(
        "reps", "Repetitions of every work-set row", cxxopts::value<int>()->default_value("1"))(
        "n-predict", "Tokens to generate per request", cxxopts::value<int>()->default_value("32"))(
        "kv-label", "KV cache type (f16, q8_0, ...; also --kv)", cxxopts::value<std::string>());
    options.add_options("Requests")(
        "endpoint", "chat (/v1/chat/completions) or completion (/completion, token ids)",
        cxxopts::value<std::string>()->default_value("chat"))(
        "logprobs", "Ask for top logprobs per token: max(K, 2) (0 = off; also --n-probs)",
        cxxopts::value<int>()->default_value("0"))(
        "seed", "Seeds the work-set generator",
        cxxopts::value<std::uint64_t>()->default_value(std::to_string(kDefaultSeed)));
    add_common_options(options);
    add_scoring_options(options, "recorded, and used by every check against this baseline");
    add_server_options(options, true);
    add_guard_options(options);
    add_output_options(options, "baseline");
    return {options, help_groups()};
}

int baseline_record_main(int raw_argc, char** raw_argv) {
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, guard_option_aliases()));
    auto command = baseline_record_options();
    const auto args = parse_command_line(command.options, rewritten.argc(), rewritten.argv());
    if (printed_help(args, command)) return kExitHelp;

    core::RunRequest r;
    read_common_options(args, r);
    if (const auto alias = given(args, "model-alias")) r.model_alias = alias;
    r.profile = given(args, "profile");
    r.ctxs = {args["ctx"].as<std::int64_t>()};
    r.reps = args["reps"].as<int>();
    r.n_predict = args["n-predict"].as<int>();
    r.kv_label = given(args, "kv-label");
    r.endpoint = args["endpoint"].as<std::string>();
    r.logprobs = args["logprobs"].as<int>();
    r.seed = args["seed"].as<std::uint64_t>();
    r.scoring = scoring_request(args);
    const auto outcome = driver::run_baseline_record(
        r, given(args, "out"), args.count("replace") > 0, run_options(args), printing_hooks(false));
    if (!outcome) return kExitPromotable;
    if (args.count("json"))
        std::cout << report::record_json(outcome->baseline, outcome->path, outcome->problems,
                                         version_json(build_info()))
                  << std::endl;
    else
        std::cout << report::record_text(outcome->baseline, outcome->path, outcome->problems)
                  << std::flush;
    return outcome->problems.empty() ? kExitPromotable : kExitNotPromotable;
}

CommandOptions baseline_check_options() {
    cxxopts::Options options(
        "bi-run baseline check",
        "Runs arm A and A' of a stored baseline (its work rows, model name, ctx, n_predict,\n"
        "endpoint, logprobs, scorer and KV label) against the server given now and compares\n"
        "them item by item with the stored answers, as a cell compares A with C: SAME (every\n"
        "invariant field and everything generated equal), CHANGED (an invariant field moved:\n"
        "which ids, first divergent token, near-tie or decisive), DRIFT ONLY (text, tokens or\n"
        "logprobs moved, scores held) or NOT COMPARABLE (another model file, scorer or\n"
        "request, or a side that does not reproduce itself). Writes a check report with both\n"
        "sides' provenance.\n\n"
        "Exit status: 0 SAME, 3 CHANGED, DRIFT ONLY or NOT COMPARABLE, 2 usage error or\n"
        "refused launch, 1 an error before a result (a baseline that is edited, malformed or\n"
        "not signed by a --trusted-key; a server that died; nothing written), 129/130/143\n"
        "interrupted.");
    options.add_options("Baseline")("baseline", "The baseline file (bi-run baseline record)",
                                    cxxopts::value<std::string>(), "FILE")(
        "out",
        "The check report to write (default: beside the baseline, "
        "MODEL__ctxCTX.baseline-check.json; replaced when a check completes)",
        cxxopts::value<std::string>(), "FILE");
    auto trust_group = options.add_options("Baseline");
    add_trusted_key_option(trust_group);
    options.add_options("Cell")(
        "kv-label",
        "KV cache type (default: the baseline's, unless the server flags set the cache type)",
        cxxopts::value<std::string>());
    add_common_options(options);
    add_server_options(options, true);
    add_guard_options(options);
    add_output_options(options, "check report");
    return {options, help_groups()};
}

int baseline_check_main(int raw_argc, char** raw_argv) {
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, guard_option_aliases()));
    auto command = baseline_check_options();
    const auto args = parse_command_line(command.options, rewritten.argc(), rewritten.argv());
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("baseline")) usage_error("--baseline FILE is required (the baseline to check)");

    auto options = run_options(args);
    options.baseline = args["baseline"].as<std::string>();
    options.baseline_keys = option_tokens(args, "trusted-key");
    core::RunRequest base;
    read_common_options(args, base);
    base.scoring = plugin_request(args);
    base.kv_label = given(args, "kv-label");
    const auto outcome =
        driver::run_baseline_check(base, given(args, "out"), options, printing_hooks(false));
    if (!outcome) return kExitPromotable;
    if (options.json)
        std::cout << report::check_json(outcome->check, outcome->path, version_json(build_info()))
                  << std::endl;
    else
        std::cout << report::check_text(outcome->check, outcome->path) << std::flush;
    return outcome->check.status == core::BaselineStatus::Same ? kExitPromotable
                                                               : kExitNotPromotable;
}

}  // namespace bi::cli
