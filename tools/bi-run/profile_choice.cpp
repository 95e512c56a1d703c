// Deciding between the two meanings of --profile, before any server starts.
#include "profile_choice.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "io/model_profile.hpp"

namespace bi::cli {

namespace {

[[noreturn]] void usage(const std::string& message) {
    throw Error(ErrorCategory::Usage, message);
}

// An unreadable or missing models file names no alias here; run-live reports its problems
// when it reads the file for real.
bool names_model_alias(const std::string& file, const std::string& name) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return false;
    try {
        const auto aliases = io::list_models(file).aliases;
        return std::find(aliases.begin(), aliases.end(), name) != aliases.end();
    } catch (const Error&) {
        return false;
    }
}

}  // namespace

std::string models_file_path(const cxxopts::ParseResult& args) {
    if (args.count("models-toml")) return args["models-toml"].as<std::string>();
    const char* env = std::getenv("BI_MODELS_TOML");
    return env && *env ? env : "models.toml";
}

std::string chosen_plugin_profile(const cxxopts::ParseResult& args,
                                  const plugin_host::Plugins& plugins, ProfileScope scope) {
    if (!args.count("profile")) return "";
    std::string name = args["profile"].as<std::string>();
    if (scope == ProfileScope::ModelsFileFirst && names_model_alias(models_file_path(args), name))
        return "";
    if (!plugins.has_generator(name) || !plugins.has_scorer(name)) {
        if (scope == ProfileScope::PluginOnly)
            usage("--profile " + name +
                  ": no loaded plugin offers both a generator and a scorer with that id (see "
                  "bi-run plugins)");
        return "";
    }
    if (args.count("generator") ||
        (args.count("scorer") && !args["scorer"].as<std::string>().empty()))
        usage("--profile " + name + " selects the generator and scorer '" + name +
              "'; leave out --generator and --scorer, or leave out --profile");
    return name;
}

}  // namespace bi::cli
