// bi-run plugins: lists the loaded plugins with their versions, scorers and generators, so a
// user can check that a plugin loads before a long run depends on it.
#include <cxxopts.hpp>

#include <iostream>

#include "command_line.hpp"
#include "commands.hpp"
#include "core/error.hpp"
#include "exit_codes.hpp"
#include "plugin_args.hpp"
#include "plugin_host/bundled_plugins.hpp"

namespace bi::cli {

namespace {

void print_component(const char* kind, const plugin_host::ComponentInfo& component) {
    std::cout << "  " << kind << " " << component.id;
    if (!component.description.empty()) std::cout << " - " << component.description;
    std::cout << "\n";
}

}  // namespace

int plugins_main(int argc, char** argv) {
    cxxopts::Options options(
        "bi-run plugins",
        "List the plugins bi-run would use: the bundled ones (found beside bi-run or in its "
        "installed plugin directory) and each --plugin file, with their versions, ABI, scorers "
        "and generators. A plugin that fails to load is reported in one line.\n\nExit status: 0 "
        "all loaded, 2 a plugin could not be loaded or bad arguments, 1 a plugin crashed or hung "
        "while loading.");
    options.add_options()("h,help", "Show this help")("plugin",
                                                      "Plugin .so to load as well (repeatable)",
                                                      cxxopts::value<std::vector<std::string>>());
    add_plugin_timeout_option(options);
    const auto args = parse_command_line(options, argc, argv);
    if (args.count("help")) {
        std::cout << options.help() << "\n";
        return kExitPromotable;
    }

    plugin_host::PluginSet plugins;
    load_plugins(plugins, args);
    for (const auto& plugin : plugins.list()) {
        std::cout << plugin.name << " " << plugin.version << " (ABI " << plugin.abi_major << "."
                  << plugin.abi_minor << (plugin.bundled ? ", bundled" : "") << ") " << plugin.path
                  << "\n";
        if (!plugin.description.empty()) std::cout << "  " << plugin.description << "\n";
        for (const auto& scorer : plugin.scorers) print_component("scorer", scorer);
        for (const auto& generator : plugin.generators) print_component("generator", generator);
    }
    std::cout << "default scorer: " << plugin_host::kDefaultScorerId << "\n";
    return kExitPromotable;
}

}  // namespace bi::cli
