// A ScorerInstance backed by a plugin's bi_scorer: create/destroy for the run, and the three
// steps per completion with every plugin-side failure turned into failure_mode "scorer_error".
#pragma once

#include <memory>
#include <string>

#include "host_services.hpp"
#include "loaded_plugin.hpp"
#include "scorer.hpp"

namespace bi::plugin_host {

class PluginScorer final : public ScorerInstance {
public:
    // Calls the scorer's create (when it has one); throws bi::Error(Plugin) when that fails.
    PluginScorer(std::shared_ptr<const LoadedPlugin> plugin, const ScorerTable& scorer,
                 const std::string& config_json, PluginLogger logger);
    ~PluginScorer() override;
    PluginScorer(const PluginScorer&) = delete;
    PluginScorer& operator=(const PluginScorer&) = delete;

    using ScorerInstance::evaluate;
    ScoreOutcome evaluate(const core::WorkItem& item, const Generation& generation) override;

private:
    std::string describe(const std::string& text) const;

    std::shared_ptr<const LoadedPlugin> plugin_;  // keeps the tables and the library alive
    const ScorerTable& scorer_;
    std::unique_ptr<HostServicesBridge> host_;  // valid until destroy, as the header promises
    void* instance_ = nullptr;
    bool created_ = false;
};

}  // namespace bi::plugin_host
