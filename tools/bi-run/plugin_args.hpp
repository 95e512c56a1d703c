// Command-line plumbing shared by the subcommands that use plugins: --plugin loading and
// --generator-param parsing, with errors fit for the CLI edge.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "plugin_host/plugin_set.hpp"

namespace bi::cli {

// Loads the bundled plugins, then each --plugin file in order. A plugin that cannot be loaded is
// a bad argument: bi::Error(Usage), "libfoo.so: incompatible ABI (plugin 2, host 1)".
void load_plugins(plugin_host::PluginSet& plugins, const std::vector<std::string>& paths);

// KEY=VALUE pairs from --generator-param values. cxxopts splits a value at commas, so a piece
// without '=' continues the previous value: "families=A2,A4" keeps its comma.
std::vector<std::pair<std::string, std::string>> parse_generator_params(
    const std::vector<std::string>& values);

// A framework message without its "bi: " prefix, for a CLI line that has its own.
std::string without_bi_prefix(const std::string& message);

}  // namespace bi::cli
