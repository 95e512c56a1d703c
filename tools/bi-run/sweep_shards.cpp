// bi-run plan and bi-run sweep --plan: a sweep written down once and run in shards by whatever
// scheduler the operator has (Slurm arrays, Kubernetes Indexed Jobs, CI matrices).
#include "sweep_shards.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "core/sweep_plan.hpp"
#include "driver/interrupt.hpp"
#include "driver/plan_status.hpp"
#include "driver/sweep.hpp"
#include "io/files.hpp"
#include "io/model_profile.hpp"
#include "io/plan_io.hpp"
#include "plugin_args.hpp"
#include "profile_choice.hpp"
#include "provenance.hpp"
#include "run_setup.hpp"

namespace bi::cli {

int sweep_from_plan(CommandLine& line, const cxxopts::ParseResult& args) {
    static const std::set<std::string> kAllowed = {
        "plan", "shard", "shard-count", "stale-lock-after", "out-dir", "quiet", "json"};
    for (const auto& option : args.arguments())
        if (!kAllowed.count(option.key()))
            usage_error(
                "--" + option.key() +
                ": with --plan the sweep's options come from the plan; only --shard, "
                "--shard-count, --stale-lock-after, --out-dir, --quiet and --json are taken");
    const std::string path = args["plan"].as<std::string>();
    const core::SweepPlan plan = driver::read_plan_option(path);
    const auto choice = driver::choose_shard(
        given(args, "shard"),
        args.count("shard-count") ? std::optional<std::int64_t>(args["shard-count"].as<int>())
                                  : std::nullopt,
        driver::process_environment());
    const std::string out_dir =
        args.count("out-dir") ? args["out-dir"].as<std::string>() : plan.out_dir;
    const auto stale_lock_after =
        std::chrono::duration_cast<std::chrono::seconds>(seconds_option(args, "stale-lock-after"));
    auto options = cells_options(line, args);
    options.sweep = true;
    const auto hooks = printing_hooks(line, options.json);
    const auto shard = driver::run_shard(
        plan, choice, out_dir,
        [&](const core::RunRequest& request, const core::PlanGroup& group) {
            options.resume = driver::ResumeMode{group.model, stale_lock_after};
            return driver::run_cells(request, options, hooks).tally;
        },
        *line.notes);
    if (shard.failed_groups > 0) return kExitError;
    return shard.total.left_to_others == 0 && shard.total.all_promotable ? kExitPromotable
                                                                         : kExitNotPromotable;
}

int plan_main(CommandLine& line, int raw_argc, char** raw_argv) {
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, line.aliases, plan_option_aliases()));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = command_options("plan");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    const auto profiles =
        driver::plan_profiles(given(args, "profile"), args.count("all-profiles") > 0,
                              given(args, "models-toml"), args.count("model-alias") > 0);
    core::RunRequest request = sweep_request(args);
    request.out_dir = args.count("out-dir") ? args["out-dir"].as<std::string>() : "";
    const core::SweepPlan plan =
        driver::plan_sweep(request, profiles, invocation(line), *line.notes);
    const std::string text = io::render_plan(plan);
    std::size_t n_cells = 0;
    for (const auto& group : plan.groups) n_cells += group.parallels.size();
    const std::string id = io::plan_id(plan);
    if (args.count("output")) {
        io::write_file_atomically(args["output"].as<std::string>(), text);
        std::cerr << "bi-run plan: " << id << ": " << plan.groups.size() << " group(s), " << n_cells
                  << " cell(s) written to " << args["output"].as<std::string>() << "\n";
    } else {
        std::cout << text << std::flush;
    }
    return kExitPromotable;
}

}  // namespace bi::cli
