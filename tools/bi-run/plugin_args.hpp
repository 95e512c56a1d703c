// Command-line plumbing shared by the subcommands that use plugins: --plugin loading,
// --plugin-timeout and --generator-param parsing, with errors fit for the CLI edge.
#pragma once

#include <cxxopts.hpp>

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/run_request.hpp"
#include "driver/run_setup.hpp"
#include "plugin_host/plugin_set.hpp"

namespace bi::cli {

// Applies --plugin-timeout (range-checked, named in errors) to every call of `plugins`, and makes
// SIGINT/SIGTERM/SIGHUP abandon a call in progress (the helper is killed; exit 128 + signal).
void configure_plugin_calls(plugin_host::PluginSet& plugins, const cxxopts::ParseResult& args);

// driver::load_plugins with the request's --plugin, --plugin-dir and --plugin-timeout, notes
// on `notes` (the command line's).
std::vector<std::string> load_plugins(plugin_host::PluginSet& plugins,
                                      const cxxopts::ParseResult& args, std::ostream& notes);

// --plugin, --plugin-dir and --plugin-timeout as a request's scoring part.
core::ScoringRequest plugin_request(const cxxopts::ParseResult& args);

// --plugin and --plugin-dir given before the command (bi-run --plugin X run-mock ...).
struct GlobalOptions {
    std::vector<std::string> plugins;
    std::vector<std::string> plugin_dirs;
    bool empty() const { return plugins.empty() && plugin_dirs.empty(); }
};

// Reads the global options from argv[1] on into `globals`; returns the index of the first
// other argument (the command), argc when there is none. bi::Error(Usage) for a missing value.
int read_global_options(int argc, char** argv, GlobalOptions& globals);

// `tokens` (tokens[0] the command) with the global options inserted after the command name.
std::vector<std::string> with_global_options(std::vector<std::string> tokens,
                                             const GlobalOptions& globals);

// `text` with the typographic quotes cxxopts writes (U+2018, U+2019) made ASCII '.
std::string ascii_quotes(std::string text);

using driver::parse_generator_params;

using bi::without_bi_prefix;  // core/error.hpp

}  // namespace bi::cli
