// bi-run selftest: proves the harness and the gate on the user's own server binary in about a
// minute, with a tiny random-weight model written on the spot (driver::run_selftest).
#include <cxxopts.hpp>

#include <iostream>

#include "build_info.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "driver/selftest.hpp"
#include "exit_codes.hpp"
#include "guard_options.hpp"
#include "option_aliases.hpp"
#include "option_tokens.hpp"
#include "plugin_args.hpp"
#include "provenance.hpp"
#include "report/run_summary.hpp"
#include "run_setup.hpp"

namespace bi::cli {

CommandOptions selftest_options() {
    cxxopts::Options options(
        "bi-run selftest",
        "Writes a tiny random-weight GGUF model, runs one small cell against your server binary\n"
        "(32 prompts x 64 tokens, /completion with logprobs, exact-match scoring) and reports\n"
        "whether serial runs reproduce themselves, whether arm B matches A, how many prompts\n"
        "changed tokens or logprobs under co-batching, and the verdict.\n\n"
        "Exit status as run-live: 0 promotable GREEN, 3 any other verdict, 2 usage error or\n"
        "refused launch, 1 error before a verdict, 129/130/143 interrupted.");
    options.add_options()("server-bin", "The llama-server (or work-alike) binary",
                          cxxopts::value<std::string>())("parallel", "N",
                                                         cxxopts::value<int>()->default_value("4"))(
        "server-kind",
        "The server's kind, a name or a kind file (default: the kind the binary's name and "
        "probes say, else llama-server)",
        cxxopts::value<std::string>())(
        "server-kind-dir", "Directory searched first for a --server-kind name (repeatable)",
        cxxopts::value<std::vector<std::string>>())(
        "server-flag", "One extra server argv token, commas kept (repeatable)",
        cxxopts::value<std::vector<std::string>>())("passes", "Concurrent passes",
                                                    cxxopts::value<int>()->default_value("3"))(
        "n-predict", "Tokens per request", cxxopts::value<int>()->default_value("64"))(
        "ctx", "Context per slot (small: the synthetic model is tiny)",
        cxxopts::value<std::int64_t>()->default_value("1024"))(
        "dtype", "Model matrices: f32 or f16", cxxopts::value<std::string>()->default_value("f32"))(
        "out-dir", "Where the cert and server log go (default: a new temp directory)",
        cxxopts::value<std::string>())("ready-timeout", "Seconds the server may take to load",
                                       cxxopts::value<double>()->default_value("120"))(
        "keep", "Keep the temp directory (server log) even when the selftest fails");
    add_plugin_timeout_option(options);
    auto limits = options.add_options();
    add_max_response_bytes_option(limits);
    add_guard_options(options);
    options.add_options("Output")("quiet", "No progress on stderr")(
        "json", "Print a one-line JSON summary on stdout")("h,help", "Show this help");
    return {options, {"", "Guards", "Output"}};
}

int selftest_main(int raw_argc, char** raw_argv) {
    auto aliases = guard_option_aliases();
    aliases.push_back({"--gate-passes", "--passes"});
    ArgvCopy rewritten(apply_aliases(raw_argc, raw_argv, aliases));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = selftest_options();
    const auto args = parse_command_line(command.options, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    driver::SelftestRequest request;
    if (args.count("server-bin")) request.target.server_bin = args["server-bin"].as<std::string>();
    request.target.server_flags = option_tokens(args, "server-flag");
    request.target.server_kind = given(args, "server-kind");
    request.target.server_kind_dirs = option_tokens(args, "server-kind-dir");
    request.target.ready_timeout_s = args["ready-timeout"].as<double>();
    read_guard_options(args, request.target);
    request.parallel = args["parallel"].as<int>();
    request.passes = args["passes"].as<int>();
    request.n_predict = args["n-predict"].as<int>();
    request.ctx = args["ctx"].as<std::int64_t>();
    request.dtype = args["dtype"].as<std::string>();
    if (args.count("out-dir")) request.out_dir = args["out-dir"].as<std::string>();
    request.keep = args.count("keep") > 0;
    request.quiet = args.count("quiet") > 0;
    request.max_response_bytes = args["max-response-bytes"].as<std::string>();
    request.plugin_timeout_s = args["plugin-timeout"].as<double>();

    const auto result = driver::run_selftest(request, invocation(), std::cerr);
    const auto& outcome = result.outcome;
    const report::SelftestCell summary{
        {outcome.cert, outcome.verdict, outcome.cert_path, outcome.promotable},
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
