// bi-run run-mock: one cell against the built-in continuous-batching mock server, through the
// same driver run-live uses; only the server launch differs.
#include <iostream>
#include <memory>
#include <optional>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "driver/interrupt.hpp"
#include "driver/run_plan.hpp"
#include "exit_codes.hpp"
#include "io/temporary_directory.hpp"
#include "mock/mock_config.hpp"
#include "option_aliases.hpp"
#include "run_setup.hpp"
#include "upstream_options.hpp"

namespace bi::cli {

namespace {

// The demo's pacing: co-batched steps at kFastTickMs still overlap every pass at N, while a
// request alone in the batch (every serial arm) runs on flat out after a few paced steps. On a
// slow or loaded machine a shared step stretches to half the client's turnaround, so that the
// slots stay busy while the client sends its next requests (the step counters then still show
// about N busy slots per step).
constexpr const char* kFastTickMs = "0.3";
constexpr int kFastSoloAfterTicks = 8;
constexpr double kTickPerTurnaround = 0.5;

}  // namespace

int run_mock_main(int raw_argc, char** raw_argv) {
    auto aliases = run_option_aliases();
    aliases.push_back({"--batch-divergence", "--divergence", "score"});  // the upstream name
    aliases.push_back(cert_source_option(false));
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, aliases));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = command_options("run-mock");
    const auto args = parse_command_line(command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;

    mock::MockConfig base;
    base.divergence = mock::parse_divergence(args["divergence"].as<std::string>());
    base.divergence_p = number_option(args, "divergence-p", 0, 1);
    const bool realistic = args.count("realistic-pacing") > 0;
    base.tick_ms =
        realistic && !args.count("tick-ms") ? 1.0 : number_option(args, "tick-ms", 0, 60000);
    base.fast_solo_after_ticks = realistic ? -1 : kFastSoloAfterTicks;
    // A tick the user chose is kept as chosen.
    base.tick_per_turnaround = realistic || args.count("tick-ms") ? 0.0 : kTickPerTurnaround;
    base.empty = args.count("empty") > 0;
    if (args.count("crash-after")) base.crash_after = args["crash-after"].as<std::int64_t>();
    base.hang = args.count("hang") > 0;
    base.loading_seconds = number_option(args, "loading-seconds", 0, 3600);
    base.model_alias = args["model-alias"].as<std::string>();
    mock::validate(base);

    core::RunRequest request = run_request(args);
    // As upstream's run-mock: no --out-dir, a fresh temporary directory, gone again if no cert
    // reaches it.
    std::optional<io::TemporaryDirectory> temporary;
    if (request.out_dir.empty()) request.out_dir = temporary.emplace("bi-mock").path();
    RunSetup setup = prepare_run(request);
    if (temporary)
        std::cerr << "bi-run run-mock: note: no --out-dir: writing into " << temporary->path()
                  << "\n";
    setup.quiet = args.count("quiet") > 0;
    setup.json = args.count("json") > 0;
    driver::install_interrupt_handlers();
    driver::Progress progress(driver::Progress::detect(setup.quiet), std::cerr);
    base.seed = setup.plan.options.seed;  // --seed also seeds the stochastic coin
    setup.plan.mock = std::make_shared<const mock::MockConfig>(base);
    const auto results = driver::run_plan(setup.plan, *setup.scorer, setup.rows, progress);
    if (temporary) temporary->keep();
    report_outcome(results.front(), setup);
    return results.front().outcome.verdict.status == core::Status::Green ? kExitPromotable
                                                                         : kExitNotPromotable;
}

}  // namespace bi::cli
