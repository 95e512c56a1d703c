// Command-line plumbing shared by the subcommands that use plugins: --plugin loading,
// --plugin-timeout and --generator-param parsing, with errors fit for the CLI edge.
#pragma once

#include <cxxopts.hpp>

#include <string>
#include <utility>
#include <vector>

#include "core/run_request.hpp"
#include "plugin_host/plugin_set.hpp"

namespace bi::cli {

// --plugin FILE and --plugin-dir DIR (both repeatable) in `group` of `options`.
void add_plugin_options(cxxopts::Options& options, const std::string& group = "");

// --plugin-timeout SECONDS (default 30) in `group` of `options`.
void add_plugin_timeout_option(cxxopts::Options& options, const std::string& group = "");

// Applies --plugin-timeout (range-checked, named in errors) to every call of `plugins`, and makes
// SIGINT/SIGTERM/SIGHUP abandon a call in progress (the helper is killed; exit 128 + signal).
void configure_plugin_calls(plugin_host::PluginSet& plugins, const cxxopts::ParseResult& args);

// configure_plugin_calls, then loads the bundled plugins and each --plugin file in order, a bare
// name resolved by resolve_plugin_path (the path found is noted on stderr). A --plugin with the
// ids of a bundled plugin shadows it (one note line). A plugin that cannot be loaded is a bad
// argument: bi::Error(Usage), "libfoo.so: incompatible ABI (plugin 2, host 1)"; one that crashes
// or hangs while loading stays plugin_host::PluginFault.
// Returns the paths of the --plugin files, resolved, in order.
std::vector<std::string> load_plugins(plugin_host::PluginSet& plugins,
                                      const cxxopts::ParseResult& args);
std::vector<std::string> load_plugins(plugin_host::PluginSet& plugins,
                                      const core::ScoringRequest& request);

// --plugin, --plugin-dir and --plugin-timeout as a request's scoring part.
core::ScoringRequest plugin_request(const cxxopts::ParseResult& args);

// Where a --plugin value is: a name with a '/' is a path as given; a bare name ("libspark.so")
// is looked up in `plugin_dirs` (--plugin-dir), then $BI_PLUGIN_PATH (':'-separated), the
// bundled plugin directories beside bi-run, then the current directory. bi::Error(Usage)
// listing the directories searched when it is in none.
std::string resolve_plugin_path(const std::string& name,
                                const std::vector<std::string>& plugin_dirs);

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

// KEY=VALUE pairs from --generator-param values. cxxopts splits a value at commas, so a piece
// without '=' continues the previous value: "families=A2,A4" keeps its comma.
std::vector<std::pair<std::string, std::string>> parse_generator_params(
    const std::vector<std::string>& values);

// A framework message without its "bi: " prefix, for a CLI line that has its own.
std::string without_bi_prefix(const std::string& message);

}  // namespace bi::cli
