// bi-run run-mock: one cell against the built-in continuous-batching mock server, through the
// same driver run-live uses; only the server launch differs.
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_aliases.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "driver/run_cells.hpp"
#include "io/temporary_directory.hpp"
#include "mock/mock_config.hpp"
#include "run_setup.hpp"
#include "upstream_options.hpp"

namespace bi::cli {

namespace {

// The demo's pacing: co-batched steps at --tick-ms's default (mock::kDemoTickMs) still overlap
// every pass at N, while a request alone in the batch (every serial arm) runs on flat out after a
// few paced steps. On a slow or loaded machine a shared step stretches to half the client's
// turnaround, so that the slots stay busy while the client sends its next requests (the step
// counters then still show about N busy slots per step).
constexpr int kFastSoloAfterTicks = 8;

}  // namespace

namespace {

// The mock server the options describe, checked (mock::validate).
mock::MockConfig mock_config(const cxxopts::ParseResult& args) {
    mock::MockConfig config;
    config.divergence = mock::parse_divergence(args["divergence"].as<std::string>());
    config.divergence_p = number_option(args, "divergence-p", 0, 1);
    const bool realistic = args.count("realistic-pacing") > 0;
    config.tick_ms =
        realistic && !args.count("tick-ms") ? 1.0 : number_option(args, "tick-ms", 0, 60000);
    config.fast_solo_after_ticks = realistic ? -1 : kFastSoloAfterTicks;
    // A tick the user chose is kept as chosen.
    config.tick_per_turnaround =
        realistic || args.count("tick-ms") ? 0.0 : mock::kTickPerTurnaround;
    config.empty = args.count("empty") > 0;
    if (args.count("crash-after")) config.crash_after = args["crash-after"].as<std::int64_t>();
    config.hang = args.count("hang") > 0;
    config.loading_seconds = number_option(args, "loading-seconds", 0, 3600);
    config.model_alias = args["model-alias"].as<std::string>();
    mock::validate(config);
    return config;
}

}  // namespace

int run_mock_main(CommandLine& line, int raw_argc, char** raw_argv) {
    auto aliases = run_option_aliases();
    aliases.push_back({"--batch-divergence", "--divergence", "score"});  // the upstream name
    aliases.push_back(cert_source_option(false));
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, line.aliases, aliases));
    auto command = command_options("run-mock");
    const auto args = parse_command_line(line, command, rewritten.argc(), rewritten.argv());
    if (printed_help(args, command)) return kExitHelp;
    auto options = cells_options(line, args);
    options.profile_scope = ProfileScope::PluginOnly;
    options.mock = std::make_shared<const mock::MockConfig>(mock_config(args));
    core::RunRequest request = run_request(args);
    // The mock stands in for llama-server: the chunk is its prompt tokens per step.
    if (args.count("prefill-chunk")) request.target.prefill_chunk = args["prefill-chunk"].as<int>();
    auto hooks = printing_hooks(line, options.json);
    // As upstream's run-mock: no --out-dir, a fresh temporary directory, gone again if no cert
    // reaches it.
    std::optional<io::TemporaryDirectory> temporary;
    if (request.out_dir.empty()) {
        request.out_dir = temporary.emplace("bi-mock").path();
        hooks.prepared = [&temporary](const RunSetup&) {
            std::cerr << "bi-run run-mock: note: no --out-dir: writing into " << temporary->path()
                      << "\n";
        };
    }
    const auto run = driver::run_cells(request, options, hooks);
    if (temporary) temporary->keep();
    return run.results.front().outcome.verdict.status == core::Status::Green ? kExitPromotable
                                                                             : kExitNotPromotable;
}

}  // namespace bi::cli
