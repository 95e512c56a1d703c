// Command-line plumbing shared by the subcommands that use plugins: --plugin loading,
// --plugin-timeout and --generator-param parsing, with errors fit for the CLI edge.
#pragma once

#include <cxxopts.hpp>

#include <string>
#include <utility>
#include <vector>

#include "plugin_host/plugin_set.hpp"

namespace bi::cli {

// --plugin-timeout SECONDS (default 30) in `group` of `options`.
void add_plugin_timeout_option(cxxopts::Options& options, const std::string& group = "");

// Applies --plugin-timeout (range-checked, named in errors) to every call of `plugins`, and makes
// SIGINT/SIGTERM/SIGHUP abandon a call in progress (the helper is killed; exit 128 + signal).
void configure_plugin_calls(plugin_host::PluginSet& plugins, const cxxopts::ParseResult& args);

// configure_plugin_calls, then loads the bundled plugins and each --plugin file in order. A
// plugin that cannot be loaded is a bad argument: bi::Error(Usage), "libfoo.so: incompatible ABI
// (plugin 2, host 1)"; one that crashes or hangs while loading stays plugin_host::PluginFault.
void load_plugins(plugin_host::PluginSet& plugins, const cxxopts::ParseResult& args);

// KEY=VALUE pairs from --generator-param values. cxxopts splits a value at commas, so a piece
// without '=' continues the previous value: "families=A2,A4" keeps its comma.
std::vector<std::pair<std::string, std::string>> parse_generator_params(
    const std::vector<std::string>& values);

// A framework message without its "bi: " prefix, for a CLI line that has its own.
std::string without_bi_prefix(const std::string& message);

}  // namespace bi::cli
