// bi-run baseline record and bi-run baseline check (docs/baseline.md): the serial arms of a cell
// kept as a signed reference, and the answers of another build, backend or host compared with it.
#include <cxxopts.hpp>

#include <iostream>

#include "build_info.hpp"
#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_aliases.hpp"
#include "commands.hpp"
#include "core/baseline_documents.hpp"
#include "core/error.hpp"
#include "driver/baseline_commands.hpp"
#include "guard_options.hpp"
#include "option_tokens.hpp"
#include "plugin_args.hpp"
#include "report/baseline_text.hpp"
#include "run_setup.hpp"
#include "trust_options.hpp"

namespace bi::cli {

namespace {

// The request settings both commands take from their options.
void read_common_options(const cxxopts::ParseResult& args, core::RunRequest& r) {
    r.req_timeout = core::Seconds(args["req-timeout"].as<double>());
    r.arm_deadline = core::Seconds(args["arm-deadline"].as<double>());
    r.max_response_bytes = max_response_bytes_option(args);
    r.target = target_request(args);
    r.sign_key = given(args, "sign-key");
}

// The run options both commands take: --dry-run, --quiet, --json.
driver::CellsOptions run_options(const CommandLine& line, const cxxopts::ParseResult& args) {
    auto options = cells_options(line, args);
    options.dry_run = args.count("dry-run") > 0;
    return options;
}

}  // namespace

int baseline_record_main(CommandLine& line, int raw_argc, char** raw_argv) {
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, line.aliases, guard_option_aliases()));
    auto command = command_options("baseline record");
    const auto args = parse_command_line(line, command, rewritten.argc(), rewritten.argv());
    if (printed_help(args, command)) return kExitHelp;

    core::RunRequest r;
    read_common_options(args, r);
    if (const auto alias = given(args, "model-alias")) r.model_alias = alias;
    r.profile = given(args, "profile");
    r.ctxs = {args["ctx"].as<std::int64_t>()};
    r.reps = args["reps"].as<int>();
    r.n_predict = args["n-predict"].as<int>();
    r.kv_label = given(args, "kv-label");
    r.endpoint = endpoint_option(args);
    r.logprobs = args["logprobs"].as<int>();
    r.seed = args["seed"].as<std::uint64_t>();
    r.scoring = scoring_request(args);
    const auto outcome =
        driver::run_baseline_record(r, given(args, "out"), args.count("replace") > 0,
                                    run_options(line, args), printing_hooks(line, false));
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

int baseline_check_main(CommandLine& line, int raw_argc, char** raw_argv) {
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, line.aliases, guard_option_aliases()));
    auto command = command_options("baseline check");
    const auto args = parse_command_line(line, command, rewritten.argc(), rewritten.argv());
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("baseline")) usage_error("--baseline FILE is required (the baseline to check)");

    auto options = run_options(line, args);
    options.baseline = args["baseline"].as<std::string>();
    options.baseline_keys = option_tokens(args, "trusted-key");
    core::RunRequest base;
    read_common_options(args, base);
    base.scoring = plugin_request(args);
    base.kv_label = given(args, "kv-label");
    const auto outcome =
        driver::run_baseline_check(base, given(args, "out"), options, printing_hooks(line, false));
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
