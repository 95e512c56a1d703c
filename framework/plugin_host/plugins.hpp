// What a caller needs from a set of loaded plugins, wherever their calls run: PluginSet runs each
// in the bi-plugin-host helper process, LocalPluginSet in this very process.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/work_item.hpp"
#include "plugin_info.hpp"
#include "scorer.hpp"

namespace bi::plugin_host {

// The scorer used when none is named.
inline constexpr std::string_view kDefaultScorerId = "exact";

class Plugins {
public:
    virtual ~Plugins() = default;

    // Loads and validates one plugin file. Loading a file already loaded (the same canonical
    // path) does nothing; a plugin sharing ids with a bundled one replaces that bundled plugin
    // (it is listed no more); any other clash of scorer or generator ids is an error. Errors are
    // bi::Error(Plugin), one line: "bi: libfoo.so: incompatible ABI (plugin 2, host 1)".
    virtual void load(const std::string& path) = 0;
    // Loads the plugins shipped with bi-run from bundled_plugin_dirs() (or `dirs`): libexact.so
    // must be there; the other bundled plugins load when present.
    void load_bundled();
    virtual void load_bundled(const std::vector<std::string>& dirs) = 0;

    virtual std::vector<PluginInfo> list() const = 0;  // in load order
    virtual bool has_scorer(std::string_view id) const = 0;
    virtual bool has_generator(std::string_view id) const = 0;

    // A per-run instance of scorer `id` ("" means kDefaultScorerId). `config_json` is handed to
    // the scorer's create ("" means "{}"). An unknown id or invalid config JSON is
    // bi::Error(Usage); a failing create is bi::Error(Plugin). The instance keeps its plugin
    // loaded and may outlive this set. A failure the plugin reports while scoring is
    // failure_mode "scorer_error".
    virtual std::unique_ptr<ScorerInstance> create_scorer(
        std::string_view id, std::string_view config_json = {}) const = 0;

    // Runs generator `generator_id` and returns its rows as a JSON array of
    // {prompt, family, fill, expected_answer, system?}. `count_tokens` may be empty (no server):
    // the plugin then sees count_tokens == NULL and estimates.
    virtual core::Json generate(std::string_view generator_id, const GenerationRequest& request,
                                const TokenCounter& count_tokens = {}) const = 0;
    // generate() read through io::rows_from_json, so rows obey the work-set file rules.
    std::vector<core::WorkRow> generate_rows(std::string_view generator_id,
                                             const GenerationRequest& request,
                                             const TokenCounter& count_tokens = {}) const;

    // Where plugins' log lines go; by default stderr, "bi: plugin NAME: message", debug dropped.
    virtual void set_logger(PluginLogger logger) = 0;

protected:
    // Copied or moved only as the concrete set, never sliced through this interface.
    Plugins() = default;
    Plugins(const Plugins&) = default;
    Plugins(Plugins&&) noexcept = default;
    Plugins& operator=(const Plugins&) = default;
    Plugins& operator=(Plugins&&) noexcept = default;
};

}  // namespace bi::plugin_host
