// The plugins loaded into this very process with Poco::SharedLibrary, validated at load time and
// kept loaded for good. Only the plugin host (bi-plugin-host) and the in-process benchmark use it:
// everything else goes through PluginSet, which runs plugins in that helper process.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plugins.hpp"

namespace bi::plugin_host {

class LocalPluginSet final : public Plugins {
public:
    LocalPluginSet();
    ~LocalPluginSet() override;
    LocalPluginSet(LocalPluginSet&&) noexcept;
    LocalPluginSet& operator=(LocalPluginSet&&) noexcept;

    void load(const std::string& path) override;
    // load() for a plugin shipped with bi-run (listed as bundled).
    void load_bundled_file(const std::string& path);
    using Plugins::load_bundled;
    void load_bundled(const std::vector<std::string>& dirs) override;

    std::vector<PluginInfo> list() const override;
    bool has_scorer(std::string_view id) const override;
    bool has_generator(std::string_view id) const override;

    std::unique_ptr<ScorerInstance> create_scorer(std::string_view id,
                                                  std::string_view config_json = {}) const override;
    core::Json generate(std::string_view generator_id, const GenerationRequest& request,
                        const TokenCounter& count_tokens = {}) const override;

    void set_logger(PluginLogger logger) override;

private:
    struct State;
    void load_file(const std::string& path, bool bundled);
    std::unique_ptr<State> state_;
};

}  // namespace bi::plugin_host
