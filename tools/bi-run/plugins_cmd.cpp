// bi-run plugins: lists the loaded plugins with their versions, scorers and generators, so a
// user can check that a plugin loads before a long run depends on it.
#include <cxxopts.hpp>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/command_line.hpp"
#include "cli/exit_codes.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "plugin_args.hpp"
#include "plugin_host/bundled_plugins.hpp"

namespace bi::cli {

namespace {

void print_component(const char* kind, const plugin_host::ComponentInfo& component) {
    std::cout << "  " << kind << " " << component.id;
    if (!component.description.empty()) std::cout << " - " << component.description;
    std::cout << "\n";
}

// The commands that use a component, as the command lines that select it.
void print_uses(const plugin_host::PluginInfo& plugin) {
    for (const auto& scorer : plugin.scorers)
        std::cout << "  use: bi-run --plugin " << plugin.path
                  << " run-mock|run-live|sweep --scorer " << scorer.id << "\n";
    for (const auto& generator : plugin.generators) {
        std::cout << "  use: bi-run --plugin " << plugin.path
                  << " run-mock|run-live|sweep --generator " << generator.id << "\n"
                  << "  use: bi-run --plugin " << plugin.path << " workset --generator "
                  << generator.id << "\n";
        for (const auto& scorer : plugin.scorers)
            if (scorer.id == generator.id)
                std::cout << "  use: bi-run --plugin " << plugin.path
                          << " run-mock|run-live|sweep --profile " << generator.id
                          << " (its generator and scorer)\n";
    }
}

bool same_file(const std::string& a, const std::string& b) {
    std::error_code ec;
    return a == b || std::filesystem::equivalent(a, b, ec);
}

// Where a plugin came from: beside bi-run (a build tree), bi-run's installed plugin directory,
// or a --plugin the user named.
std::string origin(const plugin_host::PluginInfo& plugin) {
    if (!plugin.bundled) return "--plugin";
    std::error_code ec;
    const auto exe_dir = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path();
    const auto dir = std::filesystem::path(plugin.path).parent_path();
    if (!ec && same_file(dir.string(), exe_dir.string()))
        return "bundled, beside bi-run (" + exe_dir.string() + ")";
    return "bundled, bi-run's installed plugin directory (" + dir.string() + ")";
}

}  // namespace

int plugins_main(CommandLine& line, int argc, char** argv) {
    auto command = command_options("plugins");
    const auto args = parse_command_line(line, command, argc, argv);
    if (printed_help(args, command)) return kExitHelp;

    plugin_host::PluginSet plugins;
    const auto named = load_plugins(plugins, args, *line.notes);
    const bool describe = args.count("describe") > 0;
    for (const auto& plugin : plugins.list()) {
        if (describe && std::none_of(named.begin(), named.end(), [&](const std::string& path) {
                return same_file(path, plugin.path);
            }))
            continue;
        std::cout << plugin.name << " " << plugin.version << " (ABI " << plugin.abi_major << "."
                  << plugin.abi_minor << (plugin.bundled ? ", bundled" : "") << ") " << plugin.path
                  << "\n";
        if (!plugin.description.empty()) std::cout << "  " << plugin.description << "\n";
        std::cout << "  from: " << origin(plugin) << "\n";
        for (const auto& scorer : plugin.scorers) print_component("scorer", scorer);
        for (const auto& generator : plugin.generators) print_component("generator", generator);
        if (describe) print_uses(plugin);
    }
    if (describe) return kExitPromotable;
    std::cout << "default scorer: " << plugin_host::kDefaultScorerId << "\n";
    return kExitPromotable;
}

}  // namespace bi::cli
