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
#include "driver/interrupt.hpp"
#include "driver/run_plan.hpp"
#include "exit_codes.hpp"
#include "io/model_profile.hpp"
#include "option_tokens.hpp"
#include "run_setup.hpp"
#include "sensitivity_text.hpp"
#include "server/argv.hpp"
#include "server/guards.hpp"
#include "server/model_facts.hpp"
#include "sweep_shards.hpp"

namespace bi::cli {

namespace {

[[noreturn]] void usage(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

void add_server_options(cxxopts::Options& options) {
    options.add_options("Server")("server-bin", "The llama-server (or work-alike) binary",
                                  cxxopts::value<std::string>())("model", "The GGUF model file",
                                                                 cxxopts::value<std::string>())(
        "server-flag",
        "One extra server argv token, commas kept (repeatable; --server-flag=-t for dash "
        "values)",
        cxxopts::value<std::vector<std::string>>())(
        "profile",
        "A models.toml alias (sets binary, model, flags, KV label), or a measurement "
        "profile: a plugin generator + scorer of that id, e.g. spark (the models file "
        "wins when the name is both)",
        cxxopts::value<std::string>())(
        "models-toml", "The models file (default: $BI_MODELS_TOML, else ./models.toml)",
        cxxopts::value<std::string>())(
        "models-dir", "Replaces {MODELS_DIR} in models.toml (default: $MODELS_DIR)",
        cxxopts::value<std::string>())("port",
                                       "Experiment port (default: a free loopback port per launch)",
                                       cxxopts::value<int>())(
        "reserved-port", "A port never bound or addressed (repeatable)",
        cxxopts::value<std::vector<int>>())("untouchable-pid", "A PID never signalled (repeatable)",
                                            cxxopts::value<std::vector<int>>())(
        "max-footprint-gb", "Refuse when the projected footprint exceeds this",
        cxxopts::value<double>())("ready-timeout", "Seconds a server may take to answer /health",
                                  cxxopts::value<double>()->default_value("600"))(
        "shutdown-grace",
        "Seconds between SIGTERM and SIGKILL at teardown, on every path (a second interrupt: "
        "SIGKILL at once)",
        cxxopts::value<double>()->default_value("10"))("dry-run",
                                                       "Print the plan and launch nothing");
}

std::string env_or(const char* name, const std::string& fallback) {
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

// `profile_is_model` is false when --profile named a measurement profile instead.
driver::LiveTarget resolve_target(const cxxopts::ParseResult& args, bool profile_is_model = true) {
    driver::LiveTarget target;
    if (args.count("profile") && profile_is_model) {
        const std::string file = models_file_path(args);
        const std::string dir = args.count("models-dir") ? args["models-dir"].as<std::string>()
                                                         : env_or("MODELS_DIR", "");
        if (!std::filesystem::exists(file))
            usage("--profile needs a models file: " + file + " not found (see --models-toml)");
        const auto profile = io::load_model_profile(file, args["profile"].as<std::string>(), dir);
        target = {profile.server_bin, profile.gguf, profile.alias, profile.kv,
                  profile.server_flags};
    }
    if (args.count("server-bin")) target.server_bin = args["server-bin"].as<std::string>();
    if (args.count("model")) target.model = args["model"].as<std::string>();
    for (auto& flag : option_tokens(args, "server-flag")) target.flags.push_back(std::move(flag));
    if (target.kv.empty()) target.kv = "f16";
    if (target.alias.empty() && !target.model.empty())
        target.alias = std::filesystem::path(target.model).stem().string();
    return target;
}

server::GuardLimits guard_limits(const cxxopts::ParseResult& args) {
    server::GuardLimits limits;
    if (args.count("max-footprint-gb")) {
        limits.max_footprint_gb = number_option(args, "max-footprint-gb", 0.001, 1e6);
    }
    if (args.count("reserved-port"))
        for (int port : args["reserved-port"].as<std::vector<int>>()) {
            if (port < 1 || port > 65535)
                usage("--reserved-port " + std::to_string(port) + ": not a port");
            limits.reserved_ports.push_back(static_cast<std::uint16_t>(port));
        }
    if (args.count("untouchable-pid"))
        for (int pid : args["untouchable-pid"].as<std::vector<int>>()) {
            if (pid < 1) usage("--untouchable-pid " + std::to_string(pid) + ": not a PID");
            limits.untouchable_pids.push_back(pid);
        }
    return limits;
}

std::optional<std::uint16_t> chosen_port(const cxxopts::ParseResult& args) {
    if (!args.count("port")) return std::nullopt;
    const int port = args["port"].as<int>();
    if (port < 1 || port > 65535) usage("--port " + std::to_string(port) + ": not a port");
    return static_cast<std::uint16_t>(port);
}

std::string describe_footprint(const server::Footprint& f) {
    return "model " + server::format_gib(f.model_bytes) + " + KV " +
           server::format_gib(f.kv_bytes) +
           (f.kv_estimated_from_shape ? "" : " (estimated without the model's shape)") +
           " + overhead " + server::format_gib(f.overhead_bytes) + " = " +
           server::format_gib(f.total());
}

// The live half of the plan from the options; plan_live checks it before the first launch.
void plan_from_options(const cxxopts::ParseResult& args, RunSetup& setup) {
    driver::LivePlan live;
    live.target = resolve_target(args, setup.plugin_profile.empty());
    if (!setup.plugin_profile.empty() &&
        (live.target.server_bin.empty() || live.target.model.empty()))
        usage("--profile " + setup.plugin_profile +
              " is a measurement profile (generator and scorer), not a models.toml alias: give "
              "--server-bin and --model too");
    live.limits = guard_limits(args);
    live.port = chosen_port(args);
    live.ready_timeout = seconds_option(args, "ready-timeout");
    live.grace = seconds_option(args, "shutdown-grace", true);
    const bool alias_given =
        args.count("model-alias") && !args["model-alias"].as<std::string>().empty();
    std::optional<std::string> kv;
    if (args.count("kv-label")) kv = args["kv-label"].as<std::string>();
    driver::plan_live(setup.plan, std::move(live), alias_given, kv);
}

// The C passes a cell will run, and a rough wall time: nothing has run yet, so a request is
// assumed to take kAssumedTokenSeconds per generated token, serially and batched alike.
void print_passes(const driver::RunPlan& plan, std::optional<std::size_t> n_items) {
    constexpr double kAssumedTokenSeconds = 0.02;
    const auto& o = plan.options;
    int passes = o.passes;
    std::cout << "  C passes       ";
    if (o.target_rate) {
        if (!n_items) {
            std::cout << "--target-rate: " << core::trials_needed(*o.target_rate, o.confidence)
                      << " counted trials needed, at most " << o.max_passes
                      << " passes (work-set size unknown before launch)\n";
            return;
        }
        const auto e = estimate_passes(*o.target_rate, o.confidence, *n_items, o.max_passes);
        passes = std::min(e.min_passes, o.max_passes);
        std::cout << "--target-rate " << *o.target_rate << " at " << o.confidence * 100
                  << "%: " << e.trials_needed << " counted trials needed; " << *n_items
                  << " items give at least " << e.min_passes << " pass(es), capped at "
                  << o.max_passes
                  << (e.within_cap ? "" : " (the cap comes first: the target cannot be reached)")
                  << "; fewer counted trials per pass need more passes\n";
    } else {
        std::cout << passes << " fixed\n";
    }
    if (!n_items) return;
    const double request_s = kAssumedTokenSeconds * o.request.n_predict;
    for (int n : plan.parallels) {
        const auto rounds_of_n = (*n_items + n - 1) / n;  // whole rounds of N concurrent requests
        const auto rounds = static_cast<double>(rounds_of_n);
        const double seconds = request_s * (3.0 * static_cast<double>(*n_items) + passes * rounds);
        std::cout << "  wall time N=" << n << "  ~" << std::llround(seconds)
                  << " s for A, A', B and " << passes << " pass(es) of C (" << *n_items
                  << " items, assuming " << kAssumedTokenSeconds * 1000
                  << " ms per generated token; launches not included)\n";
    }
}

void print_plan(const driver::RunPlan& plan) {
    const auto& o = plan.options;
    const auto& live = *plan.live;
    const auto mem = server::mem_available_bytes();
    const server::ServerCommand command{live.target.server_bin, live.target.model,
                                        live.target.flags};
    std::cout << "plan (--dry-run: nothing is launched)\n"
              << "  server binary  " << live.target.server_bin << "\n"
              << "  model          " << live.target.model << " ("
              << server::format_gib(live.facts.file_bytes) << ", "
              << (live.facts.architecture.empty() ? "not GGUF" : live.facts.architecture) << ")\n"
              << "  port           "
              << (live.port ? std::to_string(*live.port) : "a free loopback port per launch")
              << "\n";
    if (!live.limits.reserved_ports.empty()) {
        std::cout << "  reserved ports";
        for (auto p : live.limits.reserved_ports) std::cout << " " << p;
        std::cout << "\n";
    }
    std::cout << "  MemAvailable   " << (mem ? server::format_gib(*mem) : "unknown") << "\n";
    for (auto ctx : plan.ctxs) {
        std::cout << "  ctx " << ctx << ":\n"
                  << "    arm A, A'    "
                  << server::quote_argv(server::build_argv(command, 1, ctx, live.port.value_or(0)))
                  << "\n";
        for (int n : plan.parallels) {
            std::cout << "    N=" << n << " arms B, C "
                      << server::quote_argv(
                             server::build_argv(command, n, ctx * n, live.port.value_or(0)))
                      << "\n      footprint " << describe_footprint(plan.footprint(ctx, n)) << "\n"
                      << "      cert      " << plan.cert_path(ctx, n) << "\n";
        }
    }
    const std::string passes = o.target_rate ? "T (planned)" : std::to_string(o.passes);
    std::cout << "  arms           A and A' serial; per N: B serial, then " << passes
              << " concurrent passes of C\n"
              << "  requests       (3 + " << passes << ") x work-set items x " << o.reps
              << " reps per cell (A and A' once per ctx)\n"
              << "  (port 0 above stands for the port picked at launch)\n";
}

// The items a cell will send, when the work-set can be sized without a server (its tokenizer is
// not needed to count rows); nullopt when the generator needs it.
std::optional<std::size_t> work_set_size(const RunSetup& setup) {
    const plugin_host::TokenCounter no_tokenizer = [](std::string_view) {
        return std::optional<std::int64_t>();
    };
    try {
        const auto rows =
            setup.rows(no_tokenizer, setup.plan.options.model_alias, setup.plan.ctxs.front());
        return rows.size() * static_cast<std::size_t>(setup.plan.options.reps);
    } catch (const Error&) {
        return std::nullopt;
    }
}

// run-live is a sweep of exactly one cell; both share everything but the lists and the table.
int run_live_cells(int argc, char** argv, bool sweep) {
    cxxopts::Options options(
        sweep ? "bi-run sweep" : "bi-run run-live",
        sweep
            ? "Runs run-live over every (ctx, N) of --ctx 4096,8192 --parallel 2,4,8: one cert "
              "per\n"
              "cell, one A baseline per ctx shared by all N at that ctx, a summary table at the\n"
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
    add_run_options(options, "");
    add_server_options(options);
    if (sweep) add_shard_options(options);
    const auto args = parse_command_line(options, argc, argv);
    if (args.count("help")) {
        std::cout << options.help() << "\n";
        return kExitPromotable;
    }
    if (sweep && args.count("plan")) return sweep_from_plan(args);
    if (sweep && (args.count("shard") || args.count("shard-count")))
        usage("--shard and --shard-count split a planned sweep: give --plan too (see bi-run plan)");
    return run_cells(args, sweep, nullptr).exit_code;
}

}  // namespace

void add_sweep_options(cxxopts::Options& options, bool shards) {
    add_run_options(options, "");
    add_server_options(options);
    if (shards) add_shard_options(options);
}

SweepCells sweep_cells(const cxxopts::ParseResult& args) {
    RunSetup setup = prepare_run(args, true, ProfileScope::ModelsFileFirst);
    const auto target = resolve_target(args, setup.plugin_profile.empty());
    const bool alias_given =
        args.count("model-alias") && !args["model-alias"].as<std::string>().empty();
    SweepCells cells{alias_given ? args["model-alias"].as<std::string>() : target.alias,
                     setup.plan.ctxs, setup.plan.parallels};
    if (cells.model.empty())
        usage("the sweep names no model: give --profile ALIAS, --model FILE or --model-alias");
    setup.plan.options.model_alias = cells.model;
    driver::check_cell_names(setup.plan.options);
    return cells;
}

SweepRun run_cells(const cxxopts::ParseResult& args, bool sweep, const ResumeMode* resume) {
    RunSetup setup = prepare_run(args, sweep, ProfileScope::ModelsFileFirst);
    plan_from_options(args, setup);
    SweepRun run;
    if (args.count("dry-run")) {
        print_plan(setup.plan);
        print_passes(setup.plan, work_set_size(setup));
        return run;
    }
    if (resume) {
        if (setup.plan.options.model_alias != resume->model)
            usage("the plan's group names model " + resume->model + " but its options give " +
                  setup.plan.options.model_alias + " here (another models.toml?)");
        setup.plan.resume = true;
        setup.plan.stale_lock_after = resume->stale_lock_after;
    }
    driver::install_interrupt_handlers();
    driver::Progress progress(driver::Progress::detect(setup.quiet), std::cerr);
    bool all_promotable = true;
    std::vector<driver::SkippedCell> skipped;
    const auto results = driver::run_plan(
        setup.plan, *setup.scorer, setup.rows, progress,
        [&setup](const driver::CellResult& cell) { report_outcome(cell, setup); },
        [&skipped](const driver::SkippedCell& cell) { skipped.push_back(cell); });
    for (const auto& cell : results) all_promotable &= cell.outcome.promotable;
    for (const auto& cell : skipped) {
        all_promotable &= cell.done && cell.promotable;
        ++(cell.done ? run.done_before : run.left_to_others);
    }
    run.ran = results.size();
    if (sweep && !setup.json) {
        std::cout << "\nsummary (" << setup.plan.options.model_alias << ")\n";
        std::printf("  %-8s %-4s %-44s %s\n", "ctx", "N", "verdict", "promotable");
        std::cout.flush();
        for (const auto& cell : results)
            std::printf("  %-8lld %-4d %-44s %s\n", static_cast<long long>(cell.ctx), cell.parallel,
                        core::verdict_summary(cell.outcome.verdict).c_str(),
                        cell.outcome.promotable ? "yes" : "no");
        for (const auto& cell : skipped)
            std::printf("  %-8lld %-4d %-44s %s\n", static_cast<long long>(cell.ctx), cell.parallel,
                        cell.done ? "(skipped: certified before)" : "(skipped: run elsewhere)",
                        cell.done && cell.promotable ? "yes" : "no");
        std::fflush(stdout);
    }
    run.exit_code = all_promotable ? kExitPromotable : kExitNotPromotable;
    return run;
}

int run_live_main(int argc, char** argv) {
    return run_live_cells(argc, argv, false);
}

int sweep_main(int argc, char** argv) {
    return run_live_cells(argc, argv, true);
}

int plan_n_main(int argc, char** argv) {
    cxxopts::Options options(
        "bi-run plan-n",
        "Prints the projected footprint (model + KV cache + overhead) of a --parallel N server\n"
        "for N = 1..--max-n at --ctx tokens per slot, against MemAvailable and "
        "--max-footprint-gb.");
    options.add_options()("model", "The GGUF model file", cxxopts::value<std::string>())(
        "profile", "A model alias from models.toml", cxxopts::value<std::string>())(
        "models-toml", "The models file", cxxopts::value<std::string>())(
        "models-dir", "Replaces {MODELS_DIR}", cxxopts::value<std::string>())(
        "server-bin", "Ignored here (accepted for symmetry)", cxxopts::value<std::string>())(
        "server-flag", "Ignored here", cxxopts::value<std::vector<std::string>>())(
        "ctx", "Context per slot", cxxopts::value<std::int64_t>()->default_value("4096"))(
        "max-n", "Largest N", cxxopts::value<int>()->default_value("8"))(
        "kv-label", "KV cache type (f16, q8_0, q4_0 ...)", cxxopts::value<std::string>())(
        "max-footprint-gb", "Cap to compare against", cxxopts::value<double>())("h,help",
                                                                                "Show this help");
    const auto args = parse_command_line(options, argc, argv);
    if (args.count("help")) {
        std::cout << options.help() << "\n";
        return kExitPromotable;
    }
    const driver::LiveTarget target = resolve_target(args);
    server::check_model(target.model);
    const auto ctx = args["ctx"].as<std::int64_t>();
    const int max_n = args["max-n"].as<int>();
    if (ctx < 16) usage("--ctx must be at least 16");
    if (max_n < 1 || max_n > 1024) usage("--max-n must be between 1 and 1024");
    const std::string kv = args.count("kv-label") ? args["kv-label"].as<std::string>() : target.kv;
    if (!server::kv_bytes_per_element(kv)) usage("--kv-label " + kv + ": unknown cache type");
    std::optional<double> cap;
    if (args.count("max-footprint-gb")) cap = number_option(args, "max-footprint-gb", 0.001, 1e6);
    const auto facts = server::read_model_facts(target.model);
    const auto mem = server::mem_available_bytes();
    std::cout << target.model << ": " << server::format_gib(facts.file_bytes) << ", "
              << (facts.has_shape() ? std::to_string(*facts.n_layer) + " layers" : "shape unknown")
              << ", KV " << kv << ", ctx " << ctx << " per slot; MemAvailable "
              << (mem ? server::format_gib(*mem) : "unknown") << "\n";
    std::printf("%4s %10s %12s %12s %12s %12s  %s\n", "N", "ctx_total", "model", "kv", "overhead",
                "total", "fits");
    for (int n = 1; n <= max_n; ++n) {
        const auto f = server::project_footprint(facts, ctx * n, kv);
        const double gib = static_cast<double>(f.total()) / (1024.0 * 1024.0 * 1024.0);
        const bool fits = (!mem || f.total() <= *mem) && (!cap || gib <= *cap);
        std::printf("%4d %10lld %12s %12s %12s %12s  %s\n", n, static_cast<long long>(ctx) * n,
                    server::format_gib(f.model_bytes).c_str(),
                    server::format_gib(f.kv_bytes).c_str(),
                    server::format_gib(f.overhead_bytes).c_str(),
                    server::format_gib(f.total()).c_str(), fits ? "yes" : "no");
    }
    return kExitPromotable;
}

}  // namespace bi::cli
