#include "local_plugin_set.hpp"

#include <algorithm>
#include <iostream>
#include <utility>

#include "bi/plugin.h"
#include "bundled_plugins.hpp"
#include "descriptor_check.hpp"
#include "generator_call.hpp"
#include "io/json_text.hpp"
#include "library_loader.hpp"
#include "loaded_plugin.hpp"
#include "plugin_errors.hpp"
#include "plugin_scorer.hpp"

namespace bi::plugin_host {

namespace {

void log_to_stderr(int level, std::string_view plugin_name, std::string_view message) {
    if (level < BI_LOG_INFO) return;
    std::cerr << "bi: plugin " << plugin_name << ": "
              << (level >= BI_LOG_ERROR     ? "error: "
                  : level >= BI_LOG_WARNING ? "warning: "
                                            : "")
              << message << "\n";
}

template <typename Tables>
std::string ids_of(const std::vector<std::shared_ptr<LoadedPlugin>>& plugins,
                   Tables LoadedPlugin::*tables) {
    std::string out;
    for (const auto& plugin : plugins)
        for (const auto& entry : (*plugin).*tables) out += (out.empty() ? "" : ", ") + entry.id;
    return out.empty() ? "none" : out;
}

}  // namespace

struct LocalPluginSet::State {
    std::vector<std::shared_ptr<LoadedPlugin>> plugins;
    PluginLogger logger = log_to_stderr;

    template <typename Table>
    std::pair<std::shared_ptr<LoadedPlugin>, const Table*> find(
        std::string_view id, std::vector<Table> LoadedPlugin::*tables) const {
        for (const auto& plugin : plugins)
            for (const auto& entry : (*plugin).*tables)
                if (entry.id == id) return {plugin, &entry};
        return {nullptr, nullptr};
    }
};

LocalPluginSet::LocalPluginSet() : state_(std::make_unique<State>()) {}
LocalPluginSet::~LocalPluginSet() = default;
LocalPluginSet::LocalPluginSet(LocalPluginSet&&) noexcept = default;
LocalPluginSet& LocalPluginSet::operator=(LocalPluginSet&&) noexcept = default;

void LocalPluginSet::load(const std::string& path) {
    load_file(path, false);
}

void LocalPluginSet::load_bundled_file(const std::string& path) {
    load_file(path, true);
}

void LocalPluginSet::load_bundled(const std::vector<std::string>& dirs) {
    for (const auto& file : bundled_plugin_files(dirs)) load_file(file, true);
}

void LocalPluginSet::load_file(const std::string& path, bool bundled) {
    const std::string canonical = canonical_plugin_path(path);
    for (const auto& loaded : state_->plugins)
        if (loaded->canonical_path == canonical) return;

    OpenedLibrary opened = open_plugin_library(path);
    auto plugin = std::make_shared<LoadedPlugin>();
    plugin->path = path;
    plugin->canonical_path = opened.canonical_path;
    plugin->bundled = bundled;
    plugin->library = std::move(opened.library);
    read_descriptor(opened.descriptor, *plugin);

    // A plugin the user named shadows a bundled one it shares ids with (a rebuilt copy, say);
    // any other clash is refused.
    std::vector<std::shared_ptr<LoadedPlugin>> shadowed;
    const auto clash = [&](const std::shared_ptr<LoadedPlugin>& owner, const std::string& kind,
                           const std::string& id) {
        if (!bundled && owner->bundled) {
            if (std::find(shadowed.begin(), shadowed.end(), owner) == shadowed.end())
                shadowed.push_back(owner);
            return;
        }
        throw plugin_error(path,
                           "duplicate " + kind + " id '" + id + "' (also in " + owner->path + ")");
    };
    for (const auto& scorer : plugin->scorers)
        if (const auto [owner, entry] = state_->find(scorer.id, &LoadedPlugin::scorers); entry)
            clash(owner, "scorer", scorer.id);
    for (const auto& generator : plugin->generators)
        if (const auto [owner, entry] = state_->find(generator.id, &LoadedPlugin::generators);
            entry)
            clash(owner, "generator", generator.id);
    auto& plugins = state_->plugins;
    for (const auto& owner : shadowed)
        plugins.erase(std::find(plugins.begin(), plugins.end(), owner));
    plugins.push_back(std::move(plugin));
}

std::vector<PluginInfo> LocalPluginSet::list() const {
    std::vector<PluginInfo> out;
    for (const auto& plugin : state_->plugins) {
        PluginInfo info;
        info.path = plugin->path;
        info.name = plugin->name;
        info.version = plugin->version;
        info.description = plugin->description;
        info.abi_major = plugin->abi_major;
        info.abi_minor = plugin->abi_minor;
        info.bundled = plugin->bundled;
        for (const auto& s : plugin->scorers) info.scorers.push_back({s.id, s.description});
        for (const auto& g : plugin->generators) info.generators.push_back({g.id, g.description});
        out.push_back(std::move(info));
    }
    return out;
}

bool LocalPluginSet::has_scorer(std::string_view id) const {
    return state_->find(id, &LoadedPlugin::scorers).second != nullptr;
}

bool LocalPluginSet::has_generator(std::string_view id) const {
    return state_->find(id, &LoadedPlugin::generators).second != nullptr;
}

std::unique_ptr<ScorerInstance> LocalPluginSet::create_scorer(std::string_view id,
                                                              std::string_view config_json) const {
    const std::string_view wanted = id.empty() ? kDefaultScorerId : id;
    const auto [plugin, scorer] = state_->find(wanted, &LoadedPlugin::scorers);
    if (!scorer)
        throw Error(ErrorCategory::Usage,
                    "bi: no scorer '" + std::string(wanted) + "' in the loaded plugins (scorers: " +
                        ids_of(state_->plugins, &LoadedPlugin::scorers) + ")");
    std::string config = config_json.empty() ? std::string("{}") : std::string(config_json);
    try {
        io::parse_json(config, "scorer config");
    } catch (const Error& e) {
        throw Error(ErrorCategory::Usage, std::string("bi: ") + e.what());
    }
    return std::make_unique<PluginScorer>(plugin, *scorer, config, state_->logger);
}

core::Json LocalPluginSet::generate(std::string_view generator_id, const GenerationRequest& request,
                                    const TokenCounter& count_tokens) const {
    const auto [plugin, generator] = state_->find(generator_id, &LoadedPlugin::generators);
    if (!generator)
        throw Error(ErrorCategory::Usage, "bi: no generator '" + std::string(generator_id) +
                                              "' in the loaded plugins (generators: " +
                                              ids_of(state_->plugins, &LoadedPlugin::generators) +
                                              ")");
    return call_generator(*plugin, *generator, request, count_tokens, state_->logger);
}

void LocalPluginSet::set_logger(PluginLogger logger) {
    state_->logger = std::move(logger);
}

}  // namespace bi::plugin_host
