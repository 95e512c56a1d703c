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
    return models_file_path(args.count("models-toml") ? args["models-toml"].as<std::string>()
                                                      : std::optional<std::string>());
}

std::string models_file_path(const std::optional<std::string>& given) {
    if (given) return *given;
    const char* env = std::getenv("BI_MODELS_TOML");
    return env && *env ? env : "models.toml";
}

std::string chosen_plugin_profile(const core::RunRequest& request,
                                  const plugin_host::PluginSet& plugins, ProfileScope scope) {
    if (!request.profile) return "";
    const std::string& name = *request.profile;
    if (scope == ProfileScope::ModelsFileFirst &&
        names_model_alias(models_file_path(request.target.models_toml), name))
        return "";
    if (!plugins.has_generator(name) || !plugins.has_scorer(name)) {
        if (scope == ProfileScope::PluginOnly)
            usage("--profile " + name +
                  ": no loaded plugin offers both a generator and a scorer with that id (see "
                  "bi-run plugins)");
        return "";
    }
    if (request.scoring.generator || (request.scoring.scorer && !request.scoring.scorer->empty()))
        usage("--profile " + name + " selects the generator and scorer '" + name +
              "'; leave out --generator and --scorer, or leave out --profile");
    return name;
}

}  // namespace bi::cli
