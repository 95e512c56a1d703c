// bi-run workset: materialises a generator plugin's work-set as a JSON file, so a run can use a
// fixed, reviewable work-set (--workset) and swap it without a rebuild.
#include <cxxopts.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "cli/option_aliases.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "driver/interrupt.hpp"
#include "driver/token_counter.hpp"
#include "io/files.hpp"
#include "io/workset.hpp"
#include "plugin_args.hpp"
#include "run_setup.hpp"

namespace bi::cli {

namespace {

// --tokenize HOST:PORT as an endpoint; bi::Error(Usage) naming it otherwise.
http::Endpoint tokenize_endpoint(const std::string& text) {
    const auto colon = text.rfind(':');
    const std::string port_text = colon == std::string::npos ? "" : text.substr(colon + 1);
    char* end = nullptr;
    const long port = std::strtol(port_text.c_str(), &end, 10);
    if (colon == 0 || colon == std::string::npos || port_text.empty() || *end != '\0' || port < 1 ||
        port > 65535)
        throw Error(ErrorCategory::Usage,
                    "--tokenize " + text + ": expected HOST:PORT, e.g. 127.0.0.1:8080");
    return http::Endpoint{text.substr(0, colon), static_cast<std::uint16_t>(port)};
}

// The generator's request from the options; bi::Error(Usage) naming a bad one.
plugin_host::GenerationRequest generation_request(const cxxopts::ParseResult& args) {
    plugin_host::GenerationRequest request;
    request.model_id = args["model-id"].as<std::string>();
    request.ctx = args["ctx"].as<std::int64_t>();
    request.seed = args["seed"].as<std::uint64_t>();
    if (request.model_id.empty()) throw Error(ErrorCategory::Usage, "--model-id is empty");
    if (request.ctx < 1) throw Error(ErrorCategory::Usage, "--ctx must be at least 1");
    if (args.count("generator-param"))
        request.parameters =
            parse_generator_params(args["generator-param"].as<std::vector<std::string>>());
    return request;
}

// The generator's rows; nullopt, said on stderr, when the plugin failed on arguments that were
// fine (exit 1 whatever main makes of the error's category).
std::optional<std::vector<core::WorkRow>> generated_rows(
    plugin_host::PluginSet& plugins, const std::string& generator,
    const plugin_host::GenerationRequest& request, const plugin_host::TokenCounter& count) {
    try {
        return plugins.generate_rows(generator, request, count);
    } catch (const driver::Interrupted&) {
        throw;
    } catch (const Error& e) {
        if (e.category() == ErrorCategory::Usage)
            throw Error(ErrorCategory::Usage, without_bi_prefix(e.what()));
        std::cerr << "bi-run workset: " << without_bi_prefix(e.what()) << "\n";
        return std::nullopt;
    }
}

}  // namespace

int workset_main(CommandLine& line, int raw_argc, char** raw_argv) {
    ArgvCopy rewritten(
        apply_aliases(raw_argc, raw_argv, line.aliases,
                      {{"--model", "", nullptr, nullptr, false,
                        "names a GGUF file elsewhere; the work-set's model name is --model-id"},
                       {"--profile-corner", "--generator-param", nullptr, "corner=", true}}));
    const int argc = rewritten.argc();
    char** argv = rewritten.argv();
    auto command = command_options("workset");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("generator")) throw Error(ErrorCategory::Usage, "--generator is required");

    const auto request = generation_request(args);
    plugin_host::PluginSet plugins;
    load_plugins(plugins, args, *line.notes);
    const std::string generator = args["generator"].as<std::string>();
    // Without --tokenize the generator estimates; with it, the rows are those a live run on
    // that server's model sends (one counter and one failure policy, as a cell's).
    std::optional<driver::ServerTokenCounter> tokens;
    std::string tokenize_at;
    if (args.count("tokenize")) {
        tokenize_at = args["tokenize"].as<std::string>();
        tokens.emplace(tokenize_endpoint(tokenize_at), "/tokenize", std::size_t{16} << 20);
    }
    const plugin_host::TokenCounter count =
        tokens ? tokens->counter() : plugin_host::TokenCounter{};
    const auto rows = generated_rows(plugins, generator, request, count);
    if (!rows) return kExitError;
    if (tokens && !tokens->failure().empty()) {
        std::cerr << "bi-run workset: --tokenize " << tokenize_at << ": " << tokens->failure()
                  << "; nothing written\n";
        return kExitError;
    }
    const std::string text = io::workset_to_json_text(*rows);
    if (!args.count("out")) {
        std::cout << text << std::flush;
        return kExitPromotable;
    }
    const std::string out = args["out"].as<std::string>();
    io::write_file_atomically(out, text);
    std::cerr << "bi-run workset: wrote " << rows->size() << " rows to " << out << "\n";
    return kExitPromotable;
}

}  // namespace bi::cli
