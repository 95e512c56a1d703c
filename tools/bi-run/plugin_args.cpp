#include "plugin_args.hpp"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <set>

#include "core/error.hpp"
#include "driver/interrupt.hpp"
#include "driver/run_setup.hpp"
#include "option_tokens.hpp"
#include "plugin_host/bundled_plugins.hpp"
#include "plugin_host/plugin_fault.hpp"
#include "run_setup.hpp"

namespace bi::cli {

std::string ascii_quotes(std::string text) {
    for (const std::string_view quote : {"\u2018", "\u2019"})
        for (auto at = text.find(quote); at != std::string::npos; at = text.find(quote, at))
            text.replace(at, quote.size(), "'");
    return text;
}

int read_global_options(int argc, char** argv, GlobalOptions& globals) {
    int i = 1;
    for (; i < argc; ++i) {
        const std::string token = argv[i];
        std::vector<std::string>* target = nullptr;
        std::string name;
        for (const auto& [spelling, list] : {std::pair{"--plugin", &globals.plugins},
                                             std::pair{"--plugin-dir", &globals.plugin_dirs}}) {
            const std::string prefix = std::string(spelling) + "=";
            if (token == spelling || token.compare(0, prefix.size(), prefix) == 0) {
                target = list;
                name = spelling;
            }
        }
        if (!target) break;
        if (token == name) {
            if (i + 1 >= argc) usage_error(name + " needs a value");
            target->push_back(argv[++i]);
        } else {
            target->push_back(token.substr(name.size() + 1));
        }
    }
    return i;
}

std::vector<std::string> with_global_options(std::vector<std::string> tokens,
                                             const GlobalOptions& globals) {
    std::vector<std::string> inserted;
    for (const auto& dir : globals.plugin_dirs) inserted.push_back("--plugin-dir=" + dir);
    for (const auto& plugin : globals.plugins) inserted.push_back("--plugin=" + plugin);
    tokens.insert(tokens.begin() + (tokens.empty() ? 0 : 1), inserted.begin(), inserted.end());
    return tokens;
}

void configure_plugin_calls(plugin_host::PluginSet& plugins, const cxxopts::ParseResult& args) {
    plugins.set_call_timeout(seconds_option(args, "plugin-timeout"));
    driver::install_interrupt_handlers();
    plugins.set_interrupt_check(driver::throw_if_interrupted);
}

core::ScoringRequest plugin_request(const cxxopts::ParseResult& args) {
    core::ScoringRequest request;
    request.plugins = option_tokens(args, "plugin");
    if (args.count("plugin-dir"))
        request.plugin_dirs = args["plugin-dir"].as<std::vector<std::string>>();
    if (args.count("plugin-timeout"))
        request.plugin_timeout = core::Seconds(args["plugin-timeout"].as<double>());
    return request;
}

std::vector<std::string> load_plugins(plugin_host::PluginSet& plugins,
                                      const cxxopts::ParseResult& args, std::ostream& notes) {
    return driver::load_plugins(plugins, plugin_request(args), notes);
}

}  // namespace bi::cli
