// bi-run baseline record and bi-run baseline check (docs/baseline.md): the serial arms of a cell
// kept as a signed reference, and the answers of another build, backend or host compared with it.
#include <cxxopts.hpp>

#include <filesystem>
#include <iostream>

#include "build_info.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "core/baseline_documents.hpp"
#include "core/error.hpp"
#include "driver/baseline_run.hpp"
#include "driver/interrupt.hpp"
#include "driver/plan_description.hpp"
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

namespace fs = std::filesystem;

std::string parent_dir(const std::string& path) {
    const fs::path p(path);
    return p.has_parent_path() ? p.parent_path().string() : ".";
}

// The request settings both commands take from their options.
void read_common_options(const cxxopts::ParseResult& args, core::RunRequest& r) {
    r.req_timeout_s = args["req-timeout"].as<double>();
    r.arm_deadline_s = args["arm-deadline"].as<double>();
    r.max_response_bytes = std::to_string(max_response_bytes_option(args));
    r.target = target_request(args);
    r.sign_key = given(args, "sign-key");
    r.parallels = {1};  // one slot: the serial arms only
}

// Plans the run (plugins, scorer, work-set, target, guards) and prints it for --dry-run.
driver::RunSetup planned(const core::RunRequest& request, const cxxopts::ParseResult& args) {
    auto setup = prepare_run(request, false, driver::ProfileScope::ModelsFileFirst);
    setup.quiet = args.count("quiet") > 0;
    setup.json = args.count("json") > 0;
    return setup;
}

}  // namespace

namespace {

int record_main(int raw_argc, char** raw_argv) {
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, guard_option_aliases()));
    auto command = command_options("baseline record");
    const auto args = parse_command_line(command, rewritten.argc(), rewritten.argv());
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
    const auto out = given(args, "out");
    r.out_dir = out ? parent_dir(*out) : "baselines";

    auto setup = planned(r, args);
    driver::plan_from_request(r, setup);
    const std::string path =
        out ? *out
            : "baselines/" + core::baseline_file_name(setup.plan.options.model_alias, r.ctxs[0]);
    if (args.count("dry-run")) {
        std::cout << driver::describe_live_plan(setup.plan) << "baseline: " << path << "\n"
                  << std::flush;
        return kExitPromotable;
    }
    driver::install_interrupt_handlers();
    driver::Progress progress(driver::Progress::detect(setup.quiet), std::cerr);
    const auto outcome = driver::record_baseline(setup.plan, *setup.scorer, setup.rows, progress,
                                                 path, args.count("replace") > 0);
    if (setup.json)
        std::cout << report::record_json(outcome.baseline, outcome.path, outcome.problems,
                                         version_json(build_info()))
                  << std::endl;
    else
        std::cout << report::record_text(outcome.baseline, outcome.path, outcome.problems)
                  << std::flush;
    return outcome.problems.empty() ? kExitPromotable : kExitNotPromotable;
}

}  // namespace

namespace {

int check_main(int raw_argc, char** raw_argv) {
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, guard_option_aliases()));
    auto command = command_options("baseline check");
    const auto args = parse_command_line(command, rewritten.argc(), rewritten.argv());
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("baseline")) usage_error("--baseline FILE is required (the baseline to check)");

    const std::string baseline_path = args["baseline"].as<std::string>();
    auto stored = driver::load_baseline(baseline_path, std::move(judge_options(args).trusted));
    const auto& b = stored.value;
    const std::string path =
        given(args, "out")
            .value_or((fs::path(parent_dir(baseline_path)) / core::check_file_name(b.model, b.ctx))
                          .string());

    core::RunRequest base;
    read_common_options(args, base);
    base.out_dir = parent_dir(path);
    base.scoring = plugin_request(args);
    base.kv_label = given(args, "kv-label");
    const core::RunRequest r = driver::request_from_baseline(b, baseline_path, std::move(base));

    auto setup = planned(r, args);
    setup.rows = driver::stored_rows(b);
    auto& labels = setup.plan.options.run_labels;
    labels.workset = "(the rows of baseline " + baseline_path + ")";
    labels.generator.reset();
    labels.generator_params.reset();
    driver::plan_from_request(r, setup);
    if (args.count("dry-run")) {
        std::cout << driver::describe_live_plan(setup.plan) << "baseline: " << baseline_path << " ("
                  << stored.file.signature << ")\ncheck: " << path << "\n"
                  << std::flush;
        return kExitPromotable;
    }
    driver::install_interrupt_handlers();
    driver::Progress progress(driver::Progress::detect(setup.quiet), std::cerr);
    const auto outcome = driver::check_baseline(setup.plan, *setup.scorer, progress, stored, path);
    if (setup.json)
        std::cout << report::check_json(outcome.check, outcome.path, version_json(build_info()))
                  << std::endl;
    else
        std::cout << report::check_text(outcome.check, outcome.path) << std::flush;
    return outcome.check.status == core::BaselineStatus::Same ? kExitPromotable
                                                              : kExitNotPromotable;
}

}  // namespace

int baseline_record_main(int argc, char** argv) {
    return record_main(argc, argv);
}

int baseline_check_main(int argc, char** argv) {
    return check_main(argc, argv);
}

}  // namespace bi::cli
