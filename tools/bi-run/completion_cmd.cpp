// bi-run completion bash|zsh|fish: the completion script, with the scorers and generators of the
// plugins this bi-run loads and the server kinds it knows.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/completion.hpp"
#include "cli/exit_codes.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "driver/server_kinds.hpp"
#include "plugin_args.hpp"

namespace bi::cli {

namespace {

std::vector<std::string> sorted_unique(std::vector<std::string> words) {
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    return words;
}

}  // namespace

int completion_main(CommandLine& line, int argc, char** argv) {
    auto command = command_options("completion");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;
    if (!args.count("shell")) usage_error("name the shell: bash, zsh or fish");
    const std::string shell = args["shell"].as<std::string>();
    if (shell != "bash" && shell != "zsh" && shell != "fish")
        usage_error("unknown shell '" + shell + "' (bash, zsh or fish)");

    plugin_host::PluginSet plugins;
    configure_plugin_calls(plugins, args);
    load_plugins(plugins, args, *line.notes);
    CompletionNames names;
    for (const auto& plugin : plugins.list()) {
        for (const auto& scorer : plugin.scorers) names.scorers.push_back(scorer.id);
        for (const auto& generator : plugin.generators) names.generators.push_back(generator.id);
    }
    names.scorers = sorted_unique(names.scorers);
    names.generators = sorted_unique(names.generators);
    names.server_kinds = driver::known_server_kinds({});
    std::cout << completion_script(shell, names);
    return kExitPromotable;
}

}  // namespace bi::cli
