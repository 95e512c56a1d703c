// What --profile NAME means: a models.toml alias (run-live, sweep), or a measurement profile, a
// plugin generator and scorer that share the id NAME (e.g. spark). A name that is both is the
// models.toml alias.
#pragma once

#include <cxxopts.hpp>

#include <string>

#include "plugin_host/plugins.hpp"

namespace bi::cli {

enum class ProfileScope {
    PluginOnly,       // run-mock: only measurement profiles exist
    ModelsFileFirst,  // run-live, sweep: a models.toml alias wins over a plugin profile
};

// --models-toml, else $BI_MODELS_TOML, else ./models.toml.
std::string models_file_path(const cxxopts::ParseResult& args);

// The measurement profile --profile selects, or "" when there is no --profile or (within
// ModelsFileFirst) it names a models.toml alias or no plugin profile. bi::Error(Usage) when it
// names a plugin profile but --generator or --scorer was also given, or, within PluginOnly,
// when no loaded plugin offers both a generator and a scorer of that id.
std::string chosen_plugin_profile(const cxxopts::ParseResult& args,
                                  const plugin_host::Plugins& plugins, ProfileScope scope);

}  // namespace bi::cli
