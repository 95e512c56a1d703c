// bi-run selftest: proves the harness and the gate on the user's own server binary in about a
// minute, with a tiny random-weight model written on the spot (driver::run_selftest).
#include <cxxopts.hpp>

#include <iostream>

#include "build_info.hpp"
#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_aliases.hpp"
#include "commands.hpp"
#include "driver/selftest.hpp"
#include "guard_options.hpp"
#include "option_tokens.hpp"
#include "plugin_args.hpp"
#include "provenance.hpp"
#include "report/run_summary.hpp"
#include "run_setup.hpp"

namespace bi::cli {

int selftest_main(CommandLine& line, int raw_argc, char** raw_argv) {
    auto aliases = guard_option_aliases();
    aliases.push_back({"--gate-passes", "--passes"});
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, line.aliases, aliases));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = command_options("selftest");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    driver::SelftestRequest request;
    if (args.count("server-bin")) request.target.server_bin = args["server-bin"].as<std::string>();
    request.target.server_flags = option_tokens(args, "server-flag");
    request.target.server_kind = given(args, "server-kind");
    request.target.server_kind_dirs = option_tokens(args, "server-kind-dir");
    request.target.ready_timeout = core::Seconds(args["ready-timeout"].as<double>());
    read_guard_options(args, request.target);
    request.parallel = args["parallel"].as<int>();
    request.passes = args["passes"].as<int>();
    request.n_predict = args["n-predict"].as<int>();
    request.ctx = args["ctx"].as<std::int64_t>();
    request.dtype = args["dtype"].as<std::string>();
    if (args.count("out-dir")) request.out_dir = args["out-dir"].as<std::string>();
    request.keep = args.count("keep") > 0;
    request.quiet = args.count("quiet") > 0;
    request.max_response_bytes = max_response_bytes_option(args);
    request.plugin_timeout = core::Seconds(args["plugin-timeout"].as<double>());

    const auto result = driver::run_selftest(request, invocation(line), *line.notes);
    const auto& outcome = result.outcome;
    const report::SelftestCell summary{
        {outcome.cert, outcome.verdict, outcome.cert_path, outcome.promotable, outcome.replaced},
        *request.target.server_bin,
        static_cast<int>(request.parallel),
        result.n_prompts,
        request.n_predict};
    if (args.count("json"))
        std::cout << report::selftest_json(summary, version_json(build_info())) << std::endl;
    else
        std::cout << report::selftest_text(summary) << std::flush;
    return outcome.promotable ? kExitPromotable : kExitNotPromotable;
}

}  // namespace bi::cli
